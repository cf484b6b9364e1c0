// js-yaml ships no types (it comes with the dev tools, without @types/js-yaml): the one call the
// suite makes of it, reading the workflows and action.yml.
declare module 'js-yaml' {
  /** Parses one YAML document. */
  export function load(text: string): unknown;
  const yaml: { load: typeof load };
  export default yaml;
}
