// Warming the parser up before a long run (the CLI's `inspect` over a large tree).
//
// V8 optimizes the scanner and the recursive-descent parser a few hundred kilobytes into a run,
// from the type feedback it has collected so far. Every branch first taken after that (a heredoc,
// a `%{` directive, `...`, a `/*` comment, a node shape not seen yet) throws the optimized code
// away and compiles it again: over a 12 MB tree the scanner alone was compiled five times, and the
// compile jobs took more CPU than the parsing they sped up (two cores, one for everything V8 does
// in the background). Parsing one small file that takes every branch first gives V8 complete
// feedback before it optimizes. It costs about a millisecond; a short run does not need it.
import { extractFile } from './extract';
import { parseJsonConfig } from './json';
import { overviewOf } from './overview';
import { parseHcl } from './parser';

/** Every construct of the native syntax the scanner and parser distinguish, once. */
const NATIVE_SAMPLE = `# comment
// comment
/* block
   comment */
terraform {
  required_version = ">= 1.6"
  required_providers {
    aws    = { source = "hashicorp/aws", version = "~> 5.0" }
    legacy = "~> 1.0"
  }
  backend "s3" {}
}
variable "v" {
  type    = list(object({ a = optional(string, "x"), b = map(number), c = set(bool), d = tuple([string, any]) }))
  default = [{ a = "y", b = { k = 1.5e3 }, c = [true, false], d = ["s", null] }]
  description = <<-EOT
    Text \${var.x} and %{ if var.y }yes%{ else }no%{ endif }
    %{~ for i, v in var.list ~}
    \${i}: \${v}
    %{~ endfor ~}
  EOT
  validation {
    condition     = length(var.v) > 0 && !(var.v == null) || var.z != 2
    error_message = "Bad \\"value\\" \\\\ \\n \\t \\u00e9 $\${literal} %%{literal}."
  }
  sensitive = false
}
module "m" {
  source   = "app.terraform.io/org/name/aws//sub"
  version  = "~> 1.2.0"
  count    = var.enabled ? 1 : 0
  for_each = { for k, v in var.map : k => v if v != null }
  list     = [for x in var.xs : upper(x)]
  grouped  = { for k, v in var.m : v.group => k... }
  names    = aws_instance.web[*].id
  legacy   = aws_instance.web.*.tags.Name
  first    = var.list[0].attr["key"]
  math     = (1 + 2 - 3 * 4 / 5 % 6) >= 7 <= 8 < 9 > 10
  neg      = -var.n
  args     = merge(var.a, var.b, [var.c]...)
  provider = provider::aws::arn_parse("x")
  tpl      = "\${var.prefix}-%{ if var.b }b%{ endif }-\${format("%s", "x")}"
  strip    = "\${~ var.s ~}"
  heredoc  = <<EOT
plain \${local.x}
EOT
  number  = 0.5
  index   = var.list.0.1
  ünïcode = "é"
  nested  = { "quoted key" = 1, bare = { deep = [1, [2, [3]]] }, (var.k) = 2, colon: 3 }
  depends_on = [module.other, resource.x]
}
resource "aws_instance" "web" {
  count = 2
  tags  = { Name = "web-\${count.index}" }
  dynamic "ebs" {
    for_each = var.disks
    content {
      size = ebs.value.size
    }
  }
  lifecycle { ignore_changes = [tags] }
}
locals {
  a = try(var.x, null)
  b = can(regex("^a", "abc"))
}
output "o" {
  value     = module.m.out
  sensitive = true
}
provider "aws" {
  alias  = "east"
  region = "us-east-1"
}
data "aws_ami" "x" {}
`;

/**
 * Every construct the overview's skim (skim.ts) reads, once, and nothing it gives up on: V8 then
 * compiles its one loop once, with feedback for every branch, instead of three times over a large
 * tree (each compile of that large function costs tens of milliseconds).
 */
const SKIM_SAMPLE = `# comment
// comment
/* block
   comment */
terraform {
  required_version = ">= 1.6"
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.0" }
  }
}
variable "v" {
  type        = list(object({ a = string }))
  description = <<-EOT
    Text \${var.x} and $\${literal} %%{literal}
  EOT
  default = { a: 1, "b" = -2.5e-3, c = [true, !false, null,], d = 0.5 }
  validation { condition = length(var.v) > 0 && !(var.v == null) || var.z != 2 }
}
module "m" {
  source     = "org/name/aws"
  version    = "~> 1.2.0"
  count      = var.enabled ? 1 : 0
  for_each   = { for k, v in var.map : k => v... if v != null }
  list       = [for x in var.xs : upper(x) if x != ""]
  names      = aws_instance.web[*].id
  legacy     = aws_instance.web.*.tags.Name
  first      = var.list[0].attr["key"]
  math       = (1 + 2 - 3 * 4 / 5 % 6) >= 7 <= 8 < 9 > 10
  args       = merge(var.a, var.b, [var.c]...)
  tpl        = "\${var.prefix}-\${format("%s", "x")}-\${~ var.s ~} \\"quoted\\" \\\\ \\n"
  index      = var.list.0.1
  heredoc    = <<EOT
plain \${local.x}
EOT
}
resource "aws_instance" "web" {
  tags = { Name = "web-\${count.index}" } /* inline */ # trailing
  dynamic "ebs" {
    for_each = var.disks
    content {
      size = ebs.value.size
    }
  }
  lifecycle { ignore_changes = [tags] }
}
output "o" { value = module.m.out }
`;

/** The JSON syntax's equivalents (module, variable with a type, terraform, expressions in strings). */
const JSON_SAMPLE = `{
  "terraform": { "required_providers": { "aws": { "source": "hashicorp/aws", "version": "~> 5.0" } } },
  "variable": { "v": { "type": "list(string)", "default": ["a", 1, 2.5, true, null, { "k": "\${var.x}" }] } },
  "module": { "m": { "source": "org/name/aws", "version": "1.0.0", "count": "\${var.n}" } },
  "resource": { "aws_instance": { "web": [{ "tags": { "Name": "web-\${count.index}" } }] } },
  "output": { "o": { "value": "\${module.m.out}", "sensitive": true } }
}
`;

/** The samples (exported for the test that keeps them free of diagnostics: errors would warm up recovery paths instead). */
export const WARM_UP_SAMPLES = { native: NATIVE_SAMPLE, json: JSON_SAMPLE, skim: SKIM_SAMPLE };

/**
 * Parses and extracts the samples a few times, so that V8 optimizes the parser with feedback for
 * every branch (see above). For long runs only: each call costs ≈ 1–2 ms before V8 has compiled
 * anything. `overview`: the run will take overviews (overviewOf), whose scoped parse takes the
 * out-of-scope branches too; it warms up those as well as whole-tree parses.
 */
export function warmUpParser(opts: { json?: boolean; overview?: boolean } = {}): void {
  const { native, json, skim } = WARM_UP_SAMPLES;
  for (let i = 0; i < 2; i++) {
    if (opts.overview) { overviewOf(skim, 'warm-up.tf'); overviewOf(native, 'warm-up.tf'); }
    else extractFile(parseHcl(native), native);
    if (opts.json) extractFile(parseJsonConfig(json), json);
  }
}
