// Types of the vendored Preact hooks build (hooks.mjs), for the type check only.
export * from 'preact/hooks';
