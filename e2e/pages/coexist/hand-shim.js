// A minimal hand-written WebMCP shim, as sites write them: a plain object on
// document.modelContext when the browser has none, keeping tools in a Map.
(() => {
  if (document.modelContext) return;
  const tools = new Map();
  const shim = {
    async registerTool(tool, options = {}) {
      if (tools.has(tool.name)) throw new DOMException('Duplicate tool name', 'InvalidStateError');
      tools.set(tool.name, tool);
      if (options.signal) options.signal.addEventListener('abort', () => tools.delete(tool.name), { once: true });
    },
    async getTools() {
      return Array.from(tools.values(), (t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    },
    async executeTool(tool, input = {}) {
      const t = tools.get(tool.name);
      if (!t) throw new DOMException('No such tool', 'NotFoundError');
      const out = await t.execute(input, {});
      return typeof out === 'string' ? out : JSON.stringify(out);
    },
  };
  Object.defineProperty(document, 'modelContext', { value: shim, configurable: true });
})();
