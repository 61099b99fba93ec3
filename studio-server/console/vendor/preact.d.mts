// Types of the vendored Preact build (preact.mjs), for the type check only: the declarations
// come from the `preact` package of tests/console (tsconfig `paths`). Never loaded by a browser.
export * from 'preact';
