// `{{name}}`: a toolhost tool. It reads one file of the workspace through the host's
// capability handles and says how many bytes and lines it holds, as text for the model and
// as a structured result matching its output schema. Change it into your own tool: the
// contract it follows is in `wit/tool.wit` (`toolhost wit`) and in toolhost's
// docs/authoring.md.
//
// How WIT looks from here (componentize-js): an interface the world exports is an exported
// object (`tool`), one it imports is a module named `toolhost:tool/NAME@VERSION`; enums are
// their names as strings ('read-only'), a variant is `{ tag: 'read-only' }` or
// `{ tag: 'writes', val: path }`, an option is the value or `undefined`, u64 is a BigInt,
// list<u8> a Uint8Array. A function returning `result<T, tool-error>` returns T or throws
// the tool-error (an imported one throws an Error whose `payload` is the tool-error).

import { cancelled } from 'toolhost:tool/call@{{wit_version}}';
import { openFile } from 'toolhost:tool/workspace@{{wit_version}}';

// The tool's id: what models call it by. 1 to 64 characters of `A-Za-z0-9_-`.
const ID = '{{name}}';

// The JSON Schema of the input. Every property has a description: it is all the model knows
// about it. The host checks every call's arguments against it before the tool runs.
const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      minLength: 1,
      description: 'The file to read, relative to the workspace root (or absolute inside it).',
    },
  },
  required: ['path'],
  additionalProperties: false,
};

// The JSON Schema of the structured result `execute` returns.
const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The file, as the host displays it.' },
    bytes: { type: 'integer', minimum: 0, description: 'Its size in bytes.' },
    lines: { type: 'integer', minimum: 0, description: 'How many newline characters it holds.' },
  },
  required: ['path', 'bytes', 'lines'],
  additionalProperties: false,
};

// How many bytes to ask the host for at a time.
const CHUNK = 64 * 1024;

function toolError(code, message) {
  return { code, message, retryable: false };
}

// Parse the input, refusing what the schema does not allow with `invalid-arguments` and a
// text starting `invalid tool input: ` (the host checks the schema too; this keeps the tool
// correct on its own).
function parse(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw toolError('invalid-arguments', `invalid tool input: not JSON: ${e.message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw toolError('invalid-arguments', 'invalid tool input: expected a JSON object');
  }
  for (const key of Object.keys(value)) {
    if (!(key in INPUT_SCHEMA.properties)) {
      throw toolError('invalid-arguments', `invalid tool input: unknown field \`${key}\``);
    }
  }
  if (typeof value.path !== 'string' || value.path === '') {
    throw toolError(
      'invalid-arguments',
      'invalid tool input: `path` must be a non-empty string naming a file of the workspace',
    );
  }
  return value;
}

// An imported function's error arrives as a thrown Error carrying the tool-error as its
// `payload`: pass that on as this call's error.
function hostCall(f) {
  try {
    return f();
  } catch (e) {
    throw e && e.payload ? e.payload : e;
  }
}

export const tool = {
  describe() {
    return {
      id: ID,
      description: 'Reads one file of the workspace and says how many bytes and lines it holds.',
      inputSchema: JSON.stringify(INPUT_SCHEMA),
      outputSchema: JSON.stringify(OUTPUT_SCHEMA),
      risk: 'read-only',
    };
  },

  inspect(input) {
    parse(input);
    return { tag: 'read-only' };
  },

  execute(input) {
    const args = parse(input);
    // The host resolves and fences the path; a refused path comes back as its error.
    const file = hostCall(() => openFile(args.path));
    let bytes = 0;
    let lines = 0;
    for (;;) {
      if (cancelled()) {
        throw toolError('cancelled', 'cancelled');
      }
      const chunk = hostCall(() => file.read(CHUNK));
      if (chunk.length === 0) {
        break;
      }
      bytes += chunk.length;
      for (const b of chunk) {
        if (b === 10) lines += 1;
      }
    }
    const path = file.displayPath();
    return {
      text: `${path}: ${lines} lines, ${bytes} bytes`,
      structured: JSON.stringify({ path, bytes, lines }),
    };
  },
};
