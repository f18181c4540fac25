/**
 * The shapes the modules pass around (JSDoc only: this module holds no code).
 */

/**
 * @typedef {{routes?: string[], states?: string[], dangerLevel?: 'safe'|'moderate'|'destructive',
 *            aiEnabled?: boolean, requiresApproval?: boolean, core?: boolean}} ToolScope
 * @typedef {{[hint: string]: boolean}} Hints
 * @typedef {{name: string, title: string, description: string, schemaJSON: string|undefined,
 *            outputJSON?: string, hints: Hints|undefined, execute: Function, scope: ToolScope|null, category: string|null,
 *            exposedTo: string[], form: FormDriver|null,
 *            controller: AbortController, signal: AbortSignal, fromNavigator: boolean}} ToolRecord
 * @typedef {{fill(input: any): void, submit(): Promise<any>, cancel(): void}} FormDriver
 * @typedef {{name: string, description: string, members: string[], scope: ToolScope|null,
 *            controller: AbortController, signal: AbortSignal,
 *            refused?: {name: string, error: string}[]}} CategoryRecord
 * @typedef {{type: 'text', text: string}} TextContent
 * @typedef {{content: any[], structuredContent?: any, isError?: boolean, _meta?: any}} CallToolResult
 * @typedef {{status: 'ok', value: any, fromNative?: boolean} | {status: 'threw', error: any, nativeOnly?: boolean}
 *         | {status: 'cancelled', error: DOMException}
 *         | {status: 'aborted', reason: any} | {status: 'gone'}} Outcome
 * @typedef {{ok: true, result: CallToolResult} | {ok: false, error: {code: string, message: string},
 *            result?: CallToolResult, reason?: any}} CallOutcome
 */

export {};
