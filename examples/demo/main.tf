# A small configuration used by the README's demo: module calls on the public registry and on a
# private registry host, with the usual extra arguments.

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.8"

  name = "${var.environment}-vpc"
  cidr = var.vpc_cidr
  azs  = var.availability_zones
}

module "consul" {
  source  = "hashicorp/consul/aws"
  version = ">= 0.11.0, < 0.12.0"

  cluster_name = "consul-${var.environment}"
  num_servers  = 3
}

module "network" {
  source  = "tofu.demo.internal/platform/network/aws"
  version = "2.1.0"

  for_each = toset(var.availability_zones)
  zone     = each.value
  tags     = merge(var.tags, { Zone = each.value })

  providers = {
    aws = aws.primary
  }
  depends_on = [module.vpc]
}

module "local_helpers" {
  source = "./modules/helpers"
}
