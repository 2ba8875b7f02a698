/**
 * `portcullis classify <connection> <tool> <class|auto>`: an operator's class
 * for a remote tool over the automatic rules (annotations, then name verbs).
 * The pinned list is reclassified in place, no network; a tool made riskier
 * is quarantined until reviewed again, as for any reclassification.
 */
import { z } from 'zod';
import { syncPolicies } from '../governance/contract-sync.ts';
import { classifyRemoteTool } from '../sources/remote-mcp/remote-classification.ts';
import { featureActionOf } from '../sources/remote-mcp/remote-feature-contract.ts';
import { remoteActionOf } from '../sources/remote-mcp/remote-tool-source.ts';
import { actionOrThrow } from './action-names.ts';
import { connectionOrThrow, endpointOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

const ClassifySchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
  tool: z.string().min(1),
  /** `auto`: back to the automatic rules. */
  classification: z.enum(['read', 'write', 'destructive', 'auto']),
});

export interface Classified {
  tool: string;
  classification: string;
  rule: string;
}

export async function classifyTool(ctx: OperatorContext, input: unknown): Promise<Classified> {
  return attempt(ctx, 'action.classify', input, async () => {
    const parsed = parseInput(ClassifySchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const endpoint = await endpointOrThrow(ctx, connection);
    const tools = await ctx.store.remoteTools.forConnection(connection.id);
    const named = actionOrThrow(
      connection,
      tools.map((t) => t.name),
      parsed.tool,
      'tool',
    );
    const overrides = { ...endpoint.classificationOverrides };
    if (parsed.classification === 'auto') delete overrides[named];
    else overrides[named] = parsed.classification;
    const at = ctx.now().toISOString();
    const reclassified = tools.map((tool) => {
      const { classification, rule } = classifyRemoteTool(tool.contract, overrides[tool.name]);
      return { ...tool, classification, classificationRule: rule };
    });
    await ctx.store.transaction(async (tx) => {
      await tx.remoteEndpoints.put({
        ...endpoint,
        classificationOverrides: overrides,
        updatedAt: at,
      });
      await tx.remoteTools.replace(connection, reclassified);
      const features = await tx.remoteFeatures.forConnection(connection.id);
      const sync = syncPolicies(
        connection,
        [...reclassified.map(remoteActionOf), ...features.map(featureActionOf)],
        await tx.policies.forConnection(connection.id),
        at,
        'quarantine-new',
      );
      if (sync.changed.length > 0) await tx.policies.putMany(sync.changed);
      await audit(ctx, tx, {
        action: 'action.classify',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: `${named}=${parsed.classification}`,
      });
    });
    const tool = reclassified.find((t) => t.name === named)!;
    return { tool: tool.name, classification: tool.classification, rule: tool.classificationRule };
  });
}
