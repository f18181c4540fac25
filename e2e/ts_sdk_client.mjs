// The official TypeScript MCP SDK's client (what Claude Code, Cursor and VS Code build on) driving
// the bridge, for e2e/test_ts_sdk.py. One JSON line on stdout per step, so the test can act between
// them (register a tool in the page once it reads "listening").
//
//   node ts_sdk_client.mjs http URL TOOL
//   node ts_sdk_client.mjs stdio TOOL COMMAND [ARGS...]
//
// Steps: connect; list tools until TOOL appears; call it; wait for tools/list_changed; list again.
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {ToolListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';

const WAIT_MS = 20000;
const [mode, ...rest] = process.argv.slice(2);
const say = (event, fields = {}) => process.stdout.write(JSON.stringify({event, ...fields}) + '\n');

/** @param {string} what @param {() => Promise<unknown>} check */
async function eventually(what, check) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let transport;
let tool;
if (mode === 'http') {
  const [url, name] = rest;
  transport = new StreamableHTTPClientTransport(new URL(url));
  tool = name;
} else if (mode === 'stdio') {
  const [name, command, ...args] = rest;
  // The bridge gets this process's environment (the SDK passes only a few variables by default).
  transport = new StdioClientTransport({command, args, env: /** @type {Record<string, string>} */ (process.env), stderr: 'inherit'});
  tool = name;
} else {
  throw new Error(`usage: ts_sdk_client.mjs http URL TOOL | stdio TOOL COMMAND [ARGS...] (got ${mode})`);
}

const client = new Client({name: 'tabmcp-e2e-ts', version: '1.0.0'});
let changed = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed += 1; });
try {
  await client.connect(transport);
  say('connected', {server: client.getServerVersion(), protocol: transport.protocolVersion ?? null});
  const names = async () => (await client.listTools()).tools.map((t) => t.name);
  const listed = await eventually(`tool ${tool} listed`, async () => {
    const now = await names();
    return now.includes(tool) && now;
  });
  say('tools', {names: listed});
  say('call', {result: await client.callTool({name: tool, arguments: {}})});
  const before = changed;
  say('listening');
  await eventually('notifications/tools/list_changed', async () => changed > before);
  say('list_changed', {names: await names()});
} finally {
  await client.close();
}
