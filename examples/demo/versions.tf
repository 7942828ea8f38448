terraform {
  required_version = ">= 1.6.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.40, < 6.0"
    }
    random = {
      source  = "hashicorp/random"
      version = "~> 3.6"
    }
    # Legacy (pre-0.13) string form: only a version constraint, source defaults to hashicorp/<name>.
    null = "~> 3.2"
  }
}

provider "aws" {
  alias  = "primary"
  region = "eu-central-1"
}
