variable "prefix" {
  type    = string
  default = "demo"
}

output "name" {
  value = "${var.prefix}-helpers"
}
