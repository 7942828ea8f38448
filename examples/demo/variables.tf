variable "environment" {
  description = "Deployment environment name."
  type        = string
  default     = "demo"
}

variable "vpc_cidr" {
  type    = string
  default = "10.0.0.0/16"
}

variable "availability_zones" {
  type     = list(string)
  default  = ["eu-central-1a", "eu-central-1b"]
  nullable = false
}

variable "tags" {
  type = map(string)
  default = {
    Project = "tofu-registry-demo"
  }
}

variable "subnets" {
  description = "Extra subnets per zone."
  type = map(object({
    cidr    = string
    public  = optional(bool, false)
    routes  = optional(list(string), [])
  }))
  default = {}
}
