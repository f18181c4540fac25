// The official TypeScript MCP SDK's client calling one tool that waits for an approval, for
// bench/approval_wait.py: with its default 60 s timeout, with or without `onprogress` and
// `resetTimeoutOnProgress: true`. Prints one JSON line: {ok, seconds, progress, error}.
//
//   node approval_wait.mjs http URL TOOL progress|plain
//   node approval_wait.mjs stdio TOOL progress|plain COMMAND [ARGS...]
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [mode, ...rest] = process.argv.slice(2);
let transport;
let tool;
let kind;
if (mode === 'http') {
  const [url, name, how] = rest;
  transport = new StreamableHTTPClientTransport(new URL(url));
  [tool, kind] = [name, how];
} else {
  const [name, how, command, ...args] = rest;
  transport = new StdioClientTransport({command, args, env: /** @type {Record<string, string>} */ (process.env), stderr: 'ignore'});
  [tool, kind] = [name, how];
}
const client = new Client({name: 'tabmcp-bench-ts', version: '1.0.0'});
await client.connect(transport);
for (let i = 0; i < 600; i++) { // a bridge this client started waits for its browser to connect
  if ((await client.listTools()).tools.some((t) => t.name === tool)) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
let progress = 0;
const started = Date.now();
const options = kind === 'progress' ? {onprogress: () => { progress += 1; }, resetTimeoutOnProgress: true} : {};
const out = {progress: 0, seconds: 0, ok: false, error: null};
try {
  const result = await client.callTool({name: tool, arguments: {}}, undefined, options);
  out.ok = !result.isError;
  if (result.isError) out.error = String(result.content?.[0]?.text ?? '').slice(0, 160);
} catch (e) {
  out.error = String(/** @type {any} */ (e)?.message ?? e).slice(0, 160);
}
out.seconds = (Date.now() - started) / 1000;
out.progress = progress;
process.stdout.write(JSON.stringify(out) + '\n');
await client.close();
