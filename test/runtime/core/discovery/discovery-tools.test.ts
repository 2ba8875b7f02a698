import { describe, expect, it } from 'vitest';
import {
  CALL_ACTION,
  DESCRIBE_ACTION,
  DISCOVERY_TOOLS,
  describeReply,
  SEARCH_ACTIONS,
  searchReply,
} from '../../../../runtime/core/discovery/discovery-tools.ts';

const tool = (name: string) => DISCOVERY_TOOLS.find((t) => t.name === name)!;

describe('the discovery tools', () => {
  it('are search_actions, describe_action and call_action, in that order', () => {
    expect(DISCOVERY_TOOLS.map((t) => t.name)).toEqual([
      SEARCH_ACTIONS,
      DESCRIBE_ACTION,
      CALL_ACTION,
    ]);
  });

  it.each(DISCOVERY_TOOLS.map((t) => [t.name, t] as const))(
    '%s says what to do in two sentences',
    (_, t) => {
      expect(t.description?.match(/[.!?](\s|$)/g)).toHaveLength(2);
    },
  );

  it('take the arguments issue 26 gives them', () => {
    const search = tool(SEARCH_ACTIONS).inputSchema;
    expect(search.required).toEqual(['query']);
    expect(search.properties).toMatchObject({
      query: { type: 'string' },
      connection: { type: 'string' },
      class: { type: 'string', enum: ['read', 'write', 'destructive'] },
      limit: { type: 'integer', default: 8, maximum: 50 },
    });
    expect(tool(DESCRIBE_ACTION).inputSchema).toMatchObject({
      properties: { action: { type: 'string' } },
      required: ['action'],
    });
    expect(tool(CALL_ACTION).inputSchema).toMatchObject({
      properties: { action: { type: 'string' }, arguments: { type: 'object' } },
      required: ['action', 'arguments'],
    });
    for (const t of DISCOVERY_TOOLS) expect(t.inputSchema.additionalProperties).toBe(false);
  });
});

describe('searchReply', () => {
  const result = {
    action: 'unikraft_stop_instances',
    connection: 'unikraft',
    class: 'destructive' as const,
    title: 'Stop Instances',
    summary: 'Stop one or more instances.',
    score: 12.5,
  };

  it('gives the results as structured content and the same as text', () => {
    const reply = searchReply({ query: 'stop' }, [result]);
    expect(reply.structuredContent).toEqual({ results: [result] });
    expect(JSON.parse(reply.content[0]!.text)).toEqual(reply.structuredContent);
  });

  it('says when nothing matches, and suggests a broader query without the filters used', () => {
    const reply = searchReply({ query: 'frobnicate', connection: 'linear', class: 'write' }, []);
    expect(reply.structuredContent.results).toEqual([]);
    expect(reply.structuredContent.hint).toBe(reply.content[0]!.text);
    expect(reply.structuredContent.hint).toContain('frobnicate');
    expect(reply.structuredContent.hint).toContain('broader');
    expect(reply.structuredContent.hint).toContain('connection "linear"');
  });
});

describe('describeReply', () => {
  it('shows the tool as tools/list does, with its class, as structured content and text', () => {
    const listed = {
      name: 'github__merge_pull_request',
      title: 'Merge',
      description: 'Merge a pull request.',
      inputSchema: { type: 'object' as const, properties: { pullNumber: { type: 'number' } } },
      outputSchema: { type: 'object' as const, properties: { merged: { type: 'boolean' } } },
      annotations: { readOnlyHint: false },
    };
    const reply = describeReply(listed, 'write');
    expect(reply.structuredContent).toEqual({
      action: listed.name,
      class: 'write',
      title: listed.title,
      description: listed.description,
      inputSchema: listed.inputSchema,
      outputSchema: listed.outputSchema,
      annotations: listed.annotations,
    });
    expect(JSON.parse(reply.content[0]!.text)).toEqual(reply.structuredContent);
  });
});
