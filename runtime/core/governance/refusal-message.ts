/**
 * What a refused tool call tells the agent (and, through it, a person): why,
 * and the one command that would change it. A write that is off by default
 * says so; no one disabled it.
 */

import type { ReasonCode } from '../errors.ts';
import type { GovernedAction } from '../tools/tool-source.ts';
import type { Agent, Connection, Grant } from './model.ts';

export interface RefusedCall {
  agent: Agent;
  connection: Connection;
  grant: Grant | undefined;
  action: GovernedAction;
}

/** The message for a decision's refusal, or undefined to keep the reason's plain one. */
export function refusalMessage(reason: ReasonCode, call: RefusedCall): string | undefined {
  const { agent, connection, grant, action } = call;
  const kind = action.classification;
  const names = `${connection.name} ${action.name}`;
  switch (reason) {
    case 'action_disabled':
      return kind === 'read'
        ? `an operator has disabled this action; portcullis enable ${names} turns it on again`
        : `this is a ${kind} action, and ${kind} actions are off until an operator enables them: portcullis enable ${names}`;
    case 'not_granted':
      if (grant?.scope === 'reads')
        return `this agent's grant on ${connection.name} covers reads only, and this is a ${kind} action: portcullis grant ${agent.name} ${connection.name} --scope all widens it`;
      if (grant?.scope === 'actions')
        return `this agent's grant on ${connection.name} lists other actions: portcullis grant ${agent.name} ${connection.name} --action ${action.name} (with the others) adds it`;
      return `this agent has no grant on ${connection.name}: portcullis grant ${agent.name} ${connection.name}`;
    case 'action_quarantined':
      return `this action is quarantined until an operator reviews it: portcullis review ${names}`;
    case 'contract_changed':
      return `this action's contract changed since it was reviewed; an operator must review it again: portcullis review ${names}`;
    default:
      return undefined;
  }
}
