/** Swagger UI's prebuilt files, imported as text (the wrangler `rules` of type Text in wrangler*.jsonc). */
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const text: string;
  export default text;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const text: string;
  export default text;
}
