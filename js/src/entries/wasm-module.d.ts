/** `import m from './x.wasm'`: workerd and wrangler hand a .wasm import over as a compiled module. */
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
