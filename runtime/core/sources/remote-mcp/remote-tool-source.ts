/**
 * The tools of a remote MCP connection: the list pinned at its last
 * discovery, as governed actions (beside them, its pinned prompts,
 * resources and templates, which are governed but are not tools). An action is named as the upstream names
 * it (the aggregated endpoint prefixes the connection's name, as for every
 * connection not named after its provider); its annotations state the class
 * governance gave it. Input schemas are compiled once per contract hash, by
 * an ajv that tolerates the keywords real servers write (they are not ours
 * to fix), and a schema that does not compile refuses its calls.
 */
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Classification, ToolAnnotations } from '../../../../generated/catalog-format.ts';
import { BoundedCache } from '../../base/bounded-cache.ts';
import { GatewayError } from '../../base/errors.ts';
import type { GovernedAction, ToolSource, ToolTarget } from '../../governance/tool-source.ts';
import type {
  RemoteEndpoint,
  RemoteFeature,
  RemoteTool,
  RemoteToolContract,
} from '../../model/remote.ts';

export interface RemoteAction extends GovernedAction {
  readonly contract: RemoteToolContract;
  readonly classificationRule: string;
}

export class RemoteToolSource implements ToolSource<RemoteAction> {
  readonly kind = 'remote_mcp';
  readonly endpoint: RemoteEndpoint;
  readonly actions: readonly RemoteAction[];
  /** Its pinned prompts, resources and templates, by key (`prompt:<name>`, …). */
  readonly features: ReadonlyMap<string, RemoteFeature>;
  readonly #byName: ReadonlyMap<string, RemoteAction>;
  readonly #validators: RemoteValidators;

  constructor(
    endpoint: RemoteEndpoint,
    tools: readonly RemoteTool[],
    validators: RemoteValidators,
    features: readonly RemoteFeature[] = [],
  ) {
    this.endpoint = endpoint;
    this.features = new Map(features.map((feature) => [feature.key, feature]));
    this.#validators = validators;
    this.actions = tools.map(remoteActionOf);
    this.#byName = new Map(this.actions.map((action) => [action.name, action]));
  }

  action(name: string): RemoteAction | undefined {
    return this.#byName.get(name);
  }

  validatorFor(action: RemoteAction): ValidateFunction {
    return this.#validators.of(action);
  }

  /** Every call carries the connection's (or the agent's) credential, when it has one. */
  sendsCredential(): boolean {
    return this.endpoint.authKind !== 'none';
  }
}

export type RemoteTarget = ToolTarget<RemoteToolSource>;

export function remoteActionOf(tool: RemoteTool): RemoteAction {
  const { contract } = tool;
  return {
    name: tool.name,
    title: contract.title ?? contract.annotations?.title ?? tool.name,
    description: contract.description ?? '',
    classification: tool.classification,
    annotations: annotationsFor(contract, tool.classification),
    inputSchema: contract.inputSchema,
    contractHash: tool.contractHash,
    contract,
    classificationRule: tool.classificationRule,
  };
}

function annotationsFor(
  contract: RemoteToolContract,
  classification: Classification,
): ToolAnnotations {
  const hints = contract.annotations ?? {};
  return {
    title: contract.title ?? hints.title ?? contract.name,
    readOnlyHint: classification === 'read',
    destructiveHint: classification === 'destructive',
    idempotentHint: hints.idempotentHint ?? false,
    openWorldHint: hints.openWorldHint ?? true,
  };
}

/** Input-schema validators of remote tools, one per contract hash, shared by every snapshot. */
export class RemoteValidators {
  /** Made at the first compile: a gateway without remote tools never pays for it, and a start does not. */
  #ajv: Ajv2020 | undefined;
  readonly #compiled = new BoundedCache<ValidateFunction | Error>(10_000);

  /** Throws `remote_tool_schema_invalid`'s stand-in (`arguments_invalid`) when the schema does not compile. */
  of(action: Pick<RemoteAction, 'name' | 'contractHash' | 'inputSchema'>): ValidateFunction {
    const compiled = this.#compiled.get(action.contractHash, () =>
      this.#compile(action.inputSchema),
    );
    if (compiled instanceof Error)
      throw new GatewayError(
        'arguments_invalid',
        `${action.name}'s input schema from the remote server cannot be used: ${compiled.message.slice(0, 300)}`,
      );
    return compiled;
  }

  /** Why the schema does not compile, or undefined when it does. */
  problemOf(schema: Record<string, unknown>): string | undefined {
    const compiled = this.#compile(schema);
    return compiled instanceof Error ? compiled.message.slice(0, 300) : undefined;
  }

  #compile(schema: Record<string, unknown>): ValidateFunction | Error {
    try {
      // `$schema` of another draft, or an `$id` two tools share, must not stop the compile.
      const { $schema: _schema, $id: _id, ...rest } = schema;
      this.#ajv ??= remoteAjv();
      return this.#ajv.compile(rest);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
}

function remoteAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allowUnionTypes: true,
    allErrors: true,
    validateFormats: true,
  });
  addFormats.default(ajv);
  return ajv;
}
