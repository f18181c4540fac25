/**
 * Types for polyfill/webmcp-polyfill.js (tabmcp's WebMCP polyfill). Reference: docs/polyfill.md.
 *
 * Standard (current WebMCP draft, as shipped behind --enable-features=WebMCP in Chromium):
 *   document.modelContext: registerTool / getTools / executeTool and the toolchange,
 *   toolactivated and toolcancel events.
 * tabmcp extensions (on document.modelContext and on the legacy alias):
 *   categories, list(), setStates / getStates / statechange, and the `scope` field.
 * Deprecated alias: navigator.modelContext (older drafts' shape).
 * Internal hook for the tabmcp extension: globalThis[Symbol.for('tabmcp.webmcp')].
 */

export {};

// ------------------------------------------------------------------------------------------------
// Standard WebMCP
// ------------------------------------------------------------------------------------------------

/** Hints about a tool's behaviour. Chromium keeps the first four; the polyfill keeps all. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  untrustedContentHint?: boolean;
  consequentialHint?: boolean;
  debugging?: boolean;
  /** MCP hint, kept by the polyfill (dropped by Chromium's getTools()). */
  destructiveHint?: boolean;
  /** MCP hint, kept by the polyfill (dropped by Chromium's getTools()). */
  idempotentHint?: boolean;
  /** MCP hint, kept by the polyfill (dropped by Chromium's getTools()). */
  openWorldHint?: boolean;
}

/** What `execute` receives as its second argument. */
export interface ModelContextClient {
  /** Aborted when the caller of executeTool() aborts the call. */
  readonly signal: AbortSignal;
  /** Runs callback (user interaction on the agent's behalf) and returns its promise. */
  requestUserInteraction<T>(callback: () => T | PromiseLike<T>): Promise<T>;
}

/** A tool definition given to registerTool(). */
export interface ModelContextTool<Input = any> {
  /** 1 to 128 characters from [A-Za-z0-9_.-]; unique among tools and categories. */
  name: string;
  title?: string;
  /** Required and non-empty. */
  description: string;
  /** A JSON Schema object (stored as a JSON copy). */
  inputSchema?: object;
  /**
   * A JSON Schema of the tool's result (Chrome 159; stored as a JSON copy). The tabmcp bridge
   * relays it as the MCP tool's `outputSchema` and the object the tool returns as the result's
   * `structuredContent`.
   */
  outputSchema?: object;
  annotations?: ToolAnnotations;
  /**
   * Runs the tool. The result reaches executeTool() as a string: strings pass through, other
   * values are JSON.stringify'd (non-objects with String()).
   */
  execute(input: Input, client: ModelContextClient): unknown;
  /** tabmcp extension (not standard): where and when the tool applies. */
  scope?: ToolScope;
}

export interface ModelContextRegisterToolOptions {
  /** Aborting it unregisters the tool. */
  signal?: AbortSignal;
  /**
   * Other origins the tool is offered to (URLs; their origins are kept). An origin that is not
   * potentially trustworthy (https:, wss:, file: or loopback) rejects with DOMException
   * SecurityError, a string that is not a URL with SyntaxError.
   */
  exposedTo?: string[];
}

export interface GetToolsOptions {
  /** Other origins whose exposed tools to include (validated like `exposedTo`). */
  fromOrigins?: string[];
}

export interface ExecuteToolOptions {
  /** Aborting it rejects the call with signal.reason and fires toolcancel. */
  signal?: AbortSignal;
}

/** An entry of getTools(): a plain object, freshly created on each call. */
export interface RegisteredTool {
  name: string;
  /** "" when the tool has none. */
  title: string;
  description: string;
  /** Absent when the tool has none. */
  inputSchema?: object;
  /** Absent when the tool has none. */
  outputSchema?: object;
  /** Absent when the tool has none; otherwise always these four booleans. */
  annotations?: {
    consequentialHint: boolean;
    debugging: boolean;
    readOnlyHint: boolean;
    untrustedContentHint: boolean;
  };
  origin: string;
  window: Window;
}

export interface ToolEventInit extends EventInit {
  toolName?: string;
}

export interface ToolActivatedEvent extends Event {
  readonly toolName: string;
}

export interface ToolCancelEvent extends Event {
  readonly toolName: string;
}

export interface ModelContextEventMap {
  toolchange: Event;
  toolactivated: ToolActivatedEvent;
  toolcancel: ToolCancelEvent;
  /** tabmcp extension. */
  statechange: Event;
}

/** document.modelContext: the browser's own object when it has one, else the polyfill's. */
export interface ModelContext extends EventTarget, ModelContextExtensions {
  /**
   * Registers a tool. Rejects with a TypeError for malformed definitions or an input schema
   * outside WebMCP's JSON Schema subset ($ref, $defs, format, content*, unevaluated*,
   * dependent*, additionalProperties other than false, an invalid pattern), a DOMException
   * InvalidStateError "Invalid tool name" / "Duplicate tool name" / "Description is required",
   * NotAllowedError when the `tools` Permissions Policy blocks this document, SecurityError /
   * SyntaxError for a bad `exposedTo` origin, or signal.reason when the signal is already aborted.
   */
  registerTool(tool: ModelContextTool, options?: ModelContextRegisterToolOptions): Promise<undefined>;
  /** The tools of this document and of the same-origin documents of its frame tree, sorted by name. */
  getTools(options?: GetToolsOptions): Promise<RegisteredTool[]>;
  /**
   * Runs a tool (given as an entry of getTools()) and resolves with its result as a string.
   * Rejects with DOMException DataError (message: JSON `{path, reason, schemaPath, message}`) when
   * the input does not match the tool's schema, UnknownError when the tool throws or its result
   * cannot be serialized or the person resets a form tool's form.
   */
  executeTool(tool: RegisteredTool, input?: object, options?: ExecuteToolOptions): Promise<string>;

  ontoolchange: ((this: ModelContext, ev: Event) => any) | null;
  ontoolactivated: ((this: ModelContext, ev: ToolActivatedEvent) => any) | null;
  ontoolcancel: ((this: ModelContext, ev: ToolCancelEvent) => any) | null;
  /** tabmcp extension. */
  onstatechange: ((this: ModelContext, ev: Event) => any) | null;

  addEventListener<K extends keyof ModelContextEventMap>(
    type: K, listener: (this: ModelContext, ev: ModelContextEventMap[K]) => any,
    options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof ModelContextEventMap>(
    type: K, listener: (this: ModelContext, ev: ModelContextEventMap[K]) => any,
    options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions): void;
}

// ------------------------------------------------------------------------------------------------
// tabmcp extensions: categories, list(), page states, scope
// ------------------------------------------------------------------------------------------------

/** Non-standard: lets the bridge filter tools by route, page state and risk. */
export interface ToolScope {
  /** URL path globs such as "/admin/*" or "#/users*". */
  routes?: string[];
  /** Page states (see setStates()) the tool applies in. */
  states?: string[];
  dangerLevel?: 'safe' | 'moderate' | 'destructive';
  aiEnabled?: boolean;
  requiresApproval?: boolean;
  core?: boolean;
}

/** A group of tools shown to agents as one entry until expanded. */
export interface ModelContextCategory {
  /** Same rules as tool names, and in the same namespace. */
  name: string;
  description: string;
  tools: Iterable<ModelContextTool>;
  scope?: ToolScope;
}

export interface ModelContextRegisterCategoryOptions {
  /** Aborting it removes the category and all its tools. */
  signal?: AbortSignal;
}

/** A tool as list(), expandCategory() and the hook describe it (JSON-safe). */
export interface ToolInfo {
  name: string;
  title: string;
  description: string;
  /** The tool's schema, or {type: 'object', properties: {}} when it has none. */
  inputSchema: object;
  /** Absent when the tool has none. */
  outputSchema?: object;
  /** Only the hints the page gave. */
  annotations: ToolAnnotations;
}

/** A category as list() shows it. */
export interface CategoryEntry {
  name: string;
  description: string;
  isCategory: true;
  toolCount: number;
}

export interface CategoryInfo {
  name: string;
  description: string;
  /** Member tool names, in registration order. */
  tools: string[];
  /** Members registerCategory did not register (each refused alone; the others are registered). */
  refused?: { name: string; error: string }[];
}

export interface ModelContextExtensions {
  /**
   * Registers a category and its tools (each through the normal registerTool path). Atomic: on
   * any error nothing is registered. Errors as registerTool's.
   */
  registerCategory(category: ModelContextCategory, options?: ModelContextRegisterCategoryOptions): Promise<undefined>;
  /** Removes a category and its tools. Throws DOMException NotFoundError for unknown names. */
  unregisterCategory(name: string): void;
  /** The category's tools. Throws DOMException NotFoundError for unknown names. */
  expandCategory(name: string): ToolInfo[];
  getCategories(): CategoryInfo[];
  /** Collapsed view, sorted by name: each category once, beside the uncategorized tools. */
  list(): Array<ToolInfo | CategoryEntry>;
  /** Sets the page's states (duplicates dropped); fires statechange when the set changes. */
  setStates(states: string[]): void;
  getStates(): string[];
}

// ------------------------------------------------------------------------------------------------
// Deprecated alias: navigator.modelContext
// ------------------------------------------------------------------------------------------------

/** MCP CallToolResult. */
export interface CallToolResult {
  content: Array<{ type: 'text'; text: string } | { type: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * @deprecated Use document.modelContext. Shares its registry: a tool registered on one is
 * visible on the other. Warns once on first use.
 */
export interface ModelContextLegacy extends EventTarget, ModelContextExtensions {
  /** Registers synchronously (errors are thrown). */
  registerTool(tool: ModelContextTool): { unregister(): void };
  /** Unregisters a tool registered through the polyfill (unknown names are ignored). */
  unregisterTool(name: string): void;
  list(): Array<ToolInfo | CategoryEntry>;
  /**
   * Runs a tool by name. Resolves with a CallToolResult (isError: true when the tool threw);
   * rejects with NotFoundError (no such tool), TypeError (args not an object) or the abort reason.
   */
  executeTool(name: string, args?: Record<string, unknown>, options?: ExecuteToolOptions): Promise<CallToolResult>;
  /** Older drafts: replaces the tools given by the previous provideContext(). */
  provideContext(context: { tools?: Iterable<ModelContextTool> }): void;
  /** Older drafts: removes every tool and category registered through the polyfill. */
  clearContext(): void;
  ontoolchange: ((this: ModelContextLegacy, ev: Event) => any) | null;
  onstatechange: ((this: ModelContextLegacy, ev: Event) => any) | null;
}

// ------------------------------------------------------------------------------------------------
// Internal hook for the tabmcp extension
// ------------------------------------------------------------------------------------------------

export interface SnapshotTool extends ToolInfo {
  category: string | null;
  scope: ToolScope | null;
}

export interface SnapshotCategory extends CategoryInfo {
  scope: ToolScope | null;
}

/** JSON-safe (and structured-clone safe). */
export interface Snapshot {
  tools: SnapshotTool[];
  categories: SnapshotCategory[];
  states: string[];
}

export type CallErrorCode =
  | 'TOOL_NOT_FOUND'
  | 'INVALID_ARGUMENTS'
  | 'PAGE_ERROR'
  | 'ABORTED'
  | 'BAD_RESULT'
  /** A form tool without toolautosubmit: the person cancelled (reset) the form instead of submitting it. */
  | 'USER_CANCELLED';

export type CallResponse =
  | { ok: true; result: CallToolResult }
  | {
      ok: false;
      error: { code: CallErrorCode; message: string };
      /** BAD_RESULT only: what could be converted, with a note saying what was dropped. */
      result?: CallToolResult;
    };

/** globalThis[Symbol.for('tabmcp.webmcp')]: frozen. */
export interface TabmcpWebMCPHook {
  readonly version: string;
  /** Whether the browser had its own document.modelContext when the polyfill loaded. */
  readonly native: boolean;
  snapshot(): Promise<Snapshot>;
  /** Never rejects. */
  call(name: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<CallResponse>;
  /** Calls back (coalesced per microtask) on any tool, category or state change. */
  subscribe(callback: () => void): () => void;
  /** The declarative form machinery, shared with the extension's page forms (extension/page/forms.js). */
  readonly forms: {
    /** The input schema of a form's controls (as for `<form toolname>`), leaving out what `skip` names. */
    schema(form: HTMLFormElement, options?: { skip?: (el: Element) => boolean }): Record<string, unknown>;
    /** Fills the controls from an input object, firing input and change on each control that changed. */
    fill(form: HTMLFormElement, input: Record<string, unknown>, options?: { skip?: (el: Element) => boolean }): void;
    /** The form's default (submit) button, or null. */
    defaultButton(form: HTMLFormElement): Element | null;
    /** Whether a control is a parameter: named, enabled, not a button, hidden or file input. */
    isParam(el: Element): boolean;
  };
}

// ------------------------------------------------------------------------------------------------
// Globals
// ------------------------------------------------------------------------------------------------

declare global {
  interface Document {
    readonly modelContext: ModelContext;
  }
  interface Navigator {
    /** @deprecated Use document.modelContext. */
    readonly modelContext: ModelContextLegacy | undefined;
  }
  var ModelContext: { prototype: ModelContext; new (): never };
  var ToolActivatedEvent: { prototype: ToolActivatedEvent; new (type: string, init?: ToolEventInit): ToolActivatedEvent };
  var ToolCancelEvent: { prototype: ToolCancelEvent; new (type: string, init?: ToolEventInit): ToolCancelEvent };
  interface WindowEventMap {
    toolactivated: ToolActivatedEvent;
    toolcancel: ToolCancelEvent;
  }
  interface SubmitEvent {
    /** True when an agent's tool call submits the form (declarative WebMCP). */
    readonly agentInvoked: boolean;
    /**
     * During the dispatch of an agent-invoked submission: the tool call's result. Calls
     * preventDefault(). InvalidStateError otherwise.
     */
    respondWith(result: Promise<unknown>): void;
  }
}
