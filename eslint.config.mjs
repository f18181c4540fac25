// ESLint for the JavaScript we ship: the extension and the polyfill's sources, with ESLint's
// recommended rules. Generated files are checked where they are made (the polyfill's bundle is
// esbuild's output of the linted sources). Run by bridge/tests/test_lint.py (./dev test).
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: ["extension/vendor/**", "node_modules/**", "build/**", "**/*.min.js",
      "polyfill/webmcp-polyfill.js", "extension/webmcp-polyfill.js"],
  },
  js.configs.recommended,
  {
    files: ["extension/**/*.js", "polyfill/src/*.js", "polyfill/webmcp-polyfill.mjs"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.webextensions, chrome: "readonly" },
    },
    // `const { trace, ...call } = msg` is how a message loses a field before it is passed on.
    rules: { "no-unused-vars": ["error", { ignoreRestSiblings: true }] },
  },
];
