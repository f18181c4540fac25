// ESLint for the JavaScript we ship (the extension, the polyfill's sources and its generated
// script): names that are not declared anywhere. Run by bridge/tests/test_lint.py (./dev test).
import globals from "globals";

export default [
  { ignores: ["extension/vendor/**", "node_modules/**", "build/**", "**/*.min.js"] },
  {
    files: ["extension/**/*.js", "polyfill/src/*.js", "polyfill/webmcp-polyfill.js", "polyfill/webmcp-polyfill.mjs"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.webextensions, chrome: "readonly" },
    },
    rules: { "no-undef": "error" },
  },
];
