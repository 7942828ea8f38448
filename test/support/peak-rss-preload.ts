// Preloaded into a CLI child process (`node --require peak-rss-preload.js dist/cli.js …`): on exit
// it writes the process's peak resident set size (bytes, worker threads included) to the file
// named by TOFU_TEST_PEAK_RSS_FILE. A process killed by a signal writes nothing.
import { writeFileSync } from 'node:fs';

const file = process.env.TOFU_TEST_PEAK_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
