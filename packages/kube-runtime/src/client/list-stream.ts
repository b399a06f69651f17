// Reads a list answer (`{"kind":…,"metadata":{…},"items":[…]}`) as it arrives and hands over
// each element of `items` as soon as its last byte is in, parsed on its own. A list is never
// held whole: a page of 500 objects of a megabyte each (which anyone allowed to write them can
// make) would otherwise be half a gigabyte of text and as much again parsed, all at once. The
// other top-level fields (metadata with resourceVersion and continue) are returned parsed.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const isOpen = (byte: number) => byte === OPEN_BRACE || byte === OPEN_BRACKET;
const isClose = (byte: number) => byte === CLOSE_BRACE || byte === CLOSE_BRACKET;

type State =
  | 'start'
  /** Inside the top-level object, before a field name (or its end when it is empty). */
  | 'key'
  | 'colon'
  | 'value'
  /** Reading a top-level field's value (it ends at depth 1). */
  | 'in-value'
  | 'after-value'
  /** Inside `items`, between elements. */
  | 'items'
  /** Reading one element of `items` (it ends at depth 2). */
  | 'in-item'
  | 'done';

/**
 * A push parser: `write()` each chunk of the answer, then `end()`. `onItem` gets each element of
 * `items`, in order, parsed.
 */
export class ListStreamParser {
  readonly #onItem: (item: unknown) => void;
  readonly #fields: Record<string, unknown> = {};
  #state: State = 'start';
  /** Open objects and arrays, outside strings. */
  #depth = 0;
  #inString = false;
  #escaped = false;
  #key = '';
  #empty = true;
  /** Bytes of the key or value being read, from earlier chunks. */
  #pieces: Buffer[] = [];

  constructor(onItem: (item: unknown) => void) {
    this.#onItem = onItem;
  }

  write(chunk: Buffer): void {
    const n = chunk.length;
    /** Where the key or value being read starts in this chunk. */
    let start = 0;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        // The bulk of a list is string contents: jump to the next quote or backslash.
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        while (i < n && chunk[i] !== QUOTE && chunk[i] !== BACKSLASH) i++;
        if (i === n) break;
        if (chunk[i] === BACKSLASH) this.#escaped = true;
        else {
          this.#inString = false;
          if (this.#state === 'key') {
            this.#key = JSON.parse(this.#take(chunk, start, i + 1)) as string;
            this.#state = 'colon';
          }
        }
        i++;
        continue;
      }
      const byte = chunk[i] ?? 0;
      if (this.#state === 'in-value' || this.#state === 'in-item') {
        const end = this.#state === 'in-value' ? 1 : 2;
        if ((byte === COMMA || isClose(byte)) && this.#depth === end) {
          // The value ends before this byte, which is read again as structure.
          this.#finish(this.#take(chunk, start, i));
          continue;
        }
        if (byte === QUOTE) this.#inString = true;
        else if (isOpen(byte)) this.#depth++;
        else if (isClose(byte)) this.#depth--;
        i++;
        continue;
      }
      if (isSpace(byte)) {
        i++;
        continue;
      }
      switch (this.#state) {
        case 'start':
          if (byte !== OPEN_BRACE) throw listError('the answer is not a JSON object');
          this.#depth = 1;
          this.#state = 'key';
          break;
        case 'key':
          if (byte === CLOSE_BRACE && this.#empty) {
            this.#depth = 0;
            this.#state = 'done';
            break;
          }
          if (byte !== QUOTE) throw listError('expected a field name');
          this.#inString = true;
          start = i;
          break;
        case 'colon':
          if (byte !== COLON) throw listError(`expected ":" after "${this.#key}"`);
          this.#state = 'value';
          break;
        case 'value':
          this.#empty = false;
          if (this.#key === 'items' && byte === OPEN_BRACKET) {
            this.#depth = 2;
            this.#state = 'items';
            break;
          }
          this.#state = 'in-value';
          start = i;
          continue; // the first byte of the value is read as part of it
        case 'items':
          if (byte === CLOSE_BRACKET) {
            this.#depth = 1;
            this.#state = 'after-value';
          } else if (byte !== COMMA) {
            this.#state = 'in-item';
            start = i;
            continue;
          }
          break;
        case 'after-value':
          if (byte === COMMA) this.#state = 'key';
          else if (byte === CLOSE_BRACE) {
            this.#depth = 0;
            this.#state = 'done';
          } else throw listError('expected "," or "}" after a field');
          break;
        case 'done':
          throw listError('text after the end of the answer');
      }
      i++;
    }
    const reading =
      this.#state === 'in-value' ||
      this.#state === 'in-item' ||
      (this.#state === 'key' && this.#inString);
    if (reading && n > start) this.#pieces.push(chunk.subarray(start, n));
  }

  /** The top-level fields other than items; throws when the answer ended early. */
  end(): Record<string, unknown> {
    if (this.#state !== 'done') throw listError('the answer ended before the list did');
    return this.#fields;
  }

  /** The text of what is being read: earlier chunks' pieces and `chunk[from, to)`. */
  #take(chunk: Buffer, from: number, to: number): string {
    const tail = chunk.subarray(from, to);
    const text =
      this.#pieces.length === 0
        ? tail.toString('utf8')
        : Buffer.concat([...this.#pieces, tail]).toString('utf8');
    this.#pieces = [];
    return text;
  }

  #finish(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw listError(`a value is not JSON: ${text.slice(0, 80)}`);
    }
    if (this.#state === 'in-item') {
      this.#state = 'items';
      this.#onItem(value);
    } else {
      this.#fields[this.#key] = value;
      this.#state = 'after-value';
    }
  }
}

export class ListStreamError extends Error {}

const listError = (message: string) => new ListStreamError(`reading a list: ${message}`);
