// What a corpus page sees from WebMCP, recorded the same way with and without the tabmcp
// extension (e2e/test_coexist.py compares the two). A page runs its scenario with
// `corpus.run(async () => {...})`; `corpus.done` then resolves to the report:
//   api:       which WebMCP objects the page found when its scenario started
//   outcomes:  label → 'ok' or the error ('Name: message') of each registration the page made
//   tools:     the names its own getTools() (or the old list()) gives after the scenario
//   executed:  label → what its own executeTool() gave (or the error)
//   toolchange: whether a toolchange event reached the page
//   events:    the toolactivated / toolcancel events document.modelContext fired ('type:toolName')
// `corpus.calls` counts the calls that reached each of the page's own execute functions.
(() => {
  const calls = {};
  const outcomes = {};
  const executed = {};
  let toolchange = false;
  const events = [];
  const describe = (e) => (e && typeof e === 'object' && 'name' in e ? `${e.name}: ${e.message}` : `threw ${String(e)}`);
  const plain = (v) => { try { return JSON.parse(JSON.stringify(v === undefined ? null : v)); } catch (e) { return describe(e); } };
  let resolveDone;
  const done = new Promise((resolve) => { resolveDone = resolve; });

  async function toolNames() {
    const mc = document.modelContext;
    if (mc && typeof mc.getTools === 'function') return (await mc.getTools()).map((t) => t.name).sort();
    const legacy = navigator.modelContext;
    if (legacy && typeof legacy.list === 'function') return Array.from(legacy.list(), (t) => t.name).sort();
    return null;
  }

  window.corpus = {
    calls,
    done,
    /** The page's own execute, counting the calls that reach it. */
    execute(name, fn) {
      return (input, client) => {
        calls[name] = (calls[name] || 0) + 1;
        return fn(input, client);
      };
    },
    async register(label, fn) {
      try {
        await fn();
        outcomes[label] = 'ok';
      } catch (e) {
        outcomes[label] = describe(e);
      }
    },
    async execTool(label, fn) {
      try {
        executed[label] = plain(await fn());
      } catch (e) {
        executed[label] = describe(e);
      }
    },
    /** A macrotask later (the browser answers getTools() and fires events in later tasks). */
    settle: (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms)),
    run(scenario) {
      const api = { document: !!document.modelContext, navigator: !!navigator.modelContext };
      const mc = document.modelContext;
      if (mc && typeof mc.addEventListener === 'function') {
        mc.addEventListener('toolchange', () => { toolchange = true; });
        for (const type of ['toolactivated', 'toolcancel']) mc.addEventListener(type, (e) => events.push(`${type}:${e.toolName}`));
      }
      (async () => {
        try {
          await scenario();
        } catch (e) {
          outcomes.scenario = describe(e);
        }
        await window.corpus.settle(50);
        let tools;
        try { tools = await toolNames(); } catch (e) { tools = describe(e); }
        resolveDone({ api, outcomes, tools, executed, toolchange, events: events.slice() });
      })();
    },
  };
})();
