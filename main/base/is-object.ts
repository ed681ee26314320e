// Main's "is this a plain JSON object" test (config files, MCP params, elicitation schemas).
// Declared in common/ because the window needs the same test and cannot import main/.
export { isObject } from '../../common/is-object';
