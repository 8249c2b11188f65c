import { ToolCallEvent, ToolCallReader } from './tool-call-reader';

const ids = () => {
  let next = 0;
  return () => `call_${next++}`;
};

/** Feeds `text` in pieces of `size` characters, as the model's deltas arrive. */
function read(text: string, size = 3): { reader: ToolCallReader; events: ToolCallEvent[] } {
  const reader = new ToolCallReader(ids());
  const events: ToolCallEvent[] = [];
  for (let i = 0; i < text.length; i += size) events.push(...reader.push(text.slice(i, i + size)));
  return { reader, events };
}

/** What a client puts back together from the events: OpenAI's accumulation by index. */
function accumulate(events: ToolCallEvent[]) {
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const event of events) {
    if (event.type === 'start') calls[event.index] = { id: event.id, name: event.name, arguments: '' };
    else calls[event.index].arguments += event.text;
  }
  return calls;
}

describe('ToolCallReader', () => {
  it('reads one call: its name first, then its arguments as generated', () => {
    const text = '[\n\t{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2]}}\n]';
    const { reader, events } = read(text);
    expect(events[0]).toEqual({ type: 'start', index: 0, id: 'call_0', name: 'get_weather' });
    expect(events.slice(1).every((event) => event.type === 'arguments')).toBe(true);
    expect(reader.complete).toBe(true);
    expect(reader.result).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: '{"city": "Paris", "days": [1, 2]}' },
    ]);
    expect(accumulate(events)).toEqual(reader.result);
  });

  it('reads strings with brackets, quotes and escapes inside the arguments', () => {
    const args = '{"q": "a \\"quoted\\" ]} [{ text", "n": {"deep": [{"x": "}"}]}}';
    const { reader } = read(`[{"name":"search","arguments":${args}}]`, 1);
    expect(reader.result).toEqual([{ id: 'call_0', name: 'search', arguments: args }]);
    expect(JSON.parse(reader.result[0].arguments)).toEqual({ q: 'a "quoted" ]} [{ text', n: { deep: [{ x: '}' }] } });
  });

  it('reads several calls, each with its own index and id', () => {
    const text =
      '[{"name": "get_weather", "arguments": {"city": "London"}},\n {"name": "add", "arguments": {"a": 1, "b": 2}}]';
    const { reader, events } = read(text, 5);
    expect(reader.result.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_0', 'get_weather', '{"city": "London"}'],
      ['call_1', 'add', '{"a": 1, "b": 2}'],
    ]);
    expect(accumulate(events)).toEqual(reader.result);
  });

  it('drops a call that repeats an earlier one, whitespace aside, and never starts it', () => {
    const text =
      '[{"name": "add", "arguments": {"a": 2, "b": 3}},\n\t{\n\t\t"name": "add", "arguments": {"a":2,\n "b": 3}\n\t}]';
    const { reader, events } = read(text, 2);
    expect(reader.result).toEqual([{ id: 'call_0', name: 'add', arguments: '{"a": 2, "b": 3}' }]);
    expect(events.filter((event) => event.type === 'start')).toHaveLength(1);
    expect(reader.complete).toBe(true);
  });

  it('starts a call of the same tool once its arguments differ, with everything held back so far', () => {
    const text = '[{"name": "add", "arguments": {"a": 2, "b": 3}}, {"name": "add", "arguments": {"a": 2, "b": 4}}]';
    const { reader, events } = read(text, 4);
    expect(reader.result.map((call) => call.arguments)).toEqual(['{"a": 2, "b": 3}', '{"a": 2, "b": 4}']);
    expect(accumulate(events)).toEqual(reader.result);
  });

  it('gives the arguments so far of a list cut off, and says it is not complete', () => {
    const { reader } = read('[{"name": "get_weather", "arguments": {"city": "Par');
    expect(reader.complete).toBe(false);
    expect(reader.result).toEqual([{ id: 'call_0', name: 'get_weather', arguments: '{"city": "Par' }]);
  });

  it('reads nothing from an empty text', () => {
    const { reader, events } = read('');
    expect(events).toEqual([]);
    expect(reader.result).toEqual([]);
    expect(reader.complete).toBe(false);
  });

  it('makes OpenAI-style ids by default', () => {
    const reader = new ToolCallReader();
    const [start] = reader.push('[{"name": "f", "arguments": {}}]');
    expect(start).toMatchObject({ type: 'start', name: 'f' });
    expect((start as { id: string }).id).toMatch(/^call_[0-9A-Za-z]{24}$/);
  });
});
