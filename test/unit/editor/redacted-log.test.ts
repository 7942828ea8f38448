// The editor's log wrapper (src/features/redactedLog.ts): every writing method of the channel
// redacts what it is given; every other member is the channel's own, called on the channel.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { redactingLog } from '../../../src/features/redactedLog';
import { logFailure } from '../../../src/features/context';

const SECRET = 'L0G-S3CR3T';

class FakeChannel {
  readonly written: { method: string; args: unknown[] }[] = [];
  #shown = 0; // a private field: fails if a method runs with `this` other than the channel
  get logLevel(): number { return 2; }
  info(...args: unknown[]): void { this.written.push({ method: 'info', args }); }
  warn(...args: unknown[]): void { this.written.push({ method: 'warn', args }); }
  error(...args: unknown[]): void { this.written.push({ method: 'error', args }); }
  debug(...args: unknown[]): void { this.written.push({ method: 'debug', args }); }
  trace(...args: unknown[]): void { this.written.push({ method: 'trace', args }); }
  appendLine(value: string): void { this.written.push({ method: 'appendLine', args: [value] }); }
  show(): number { return ++this.#shown; }
}

describe('redactingLog', () => {
  it('redacts user:password and secret query values in every writing method', () => {
    const channel = new FakeChannel();
    const log = redactingLog(channel);
    log.info(`module "a" (https://user:${SECRET}@h.example/x.zip?token=${SECRET}): not installed`);
    log.warn(`GET https://b.example/p.zip?X-Amz-Signature=${SECRET} → 403`);
    log.error(new Error(`git clone of git::https://${SECRET}@github.com/o/r.git failed`));
    log.debug('objects too', { url: `https://h.example/?sig=${SECRET}` });
    log.trace(`scp-like git@host:r.git?sshkey=${SECRET}`);
    log.appendLine(`https://u:${SECRET}@h.example/`);
    assert.deepEqual(channel.written.map((w) => w.method), ['info', 'warn', 'error', 'debug', 'trace', 'appendLine']);
    assert.equal(channel.written[0].args[0], 'module "a" (https://***@h.example/x.zip?token=***): not installed');
    assert.ok(channel.written[2].args[0] instanceof Error);
    for (const w of channel.written) {
      const text = w.args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' ');
      assert.ok(!text.includes(SECRET), `${w.method}: ${text}`);
      assert.match(text, /\*\*\*/);
    }
  });

  it('keeps text without secrets and every other member as the channel has it', () => {
    const channel = new FakeChannel();
    const log = redactingLog(channel);
    log.info('GET https://registry.example/v1/modules/a/b/c/versions → 200 (3 ms)', 42);
    assert.deepEqual(channel.written[0].args, ['GET https://registry.example/v1/modules/a/b/c/versions → 200 (3 ms)', 42]);
    assert.equal(log.show(), 1);
    assert.equal(log.show(), 2);
    assert.equal(log.logLevel, 2);
  });
});

describe('logFailure', () => {
  it('logs one error line and the stack as debug lines, one per frame, never one line of \\n escapes', () => {
    const channel = new FakeChannel();
    const log = redactingLog(channel);
    const err = new Error(`boom at https://u:${SECRET}@h.example/`);
    logFailure(log, 'diagnostics for /w/main.tf', err);
    assert.equal(channel.written[0].method, 'error');
    assert.equal(channel.written[0].args[0], 'diagnostics for /w/main.tf: boom at https://***@h.example/');
    const frames = channel.written.slice(1);
    assert.ok(frames.length >= 2, 'the stack came as lines of its own');
    for (const f of frames) {
      assert.equal(f.method, 'debug');
      assert.match(String(f.args[0]), /^ {2}at \S/);
      assert.ok(!String(f.args[0]).includes('\\n'), 'no escaped line break');
    }
    assert.match(String(frames[0].args[0]), /redacted-log\.test/);
    logFailure(log, 'ctx', 'a string');
    assert.deepEqual(channel.written.at(-1), { method: 'error', args: ['ctx: a string'] });
  });
});
