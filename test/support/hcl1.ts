// The HCL 1 reader lives in the engine (src/engine/cliconfig/hcl1.ts): it decides, as OpenTofu's
// hashicorp/hcl v1 does, whether a CLI configuration file parses at all. The tests use the same one.
export * from '../../src/engine/cliconfig/hcl1';
