/**
 * A remote connection's MCP Apps on its page: on (each page served as its
 * review allows, to hosts that render apps) or turned off (its tools served
 * without their app, its pages neither listed nor read), and for owners and
 * operators the switch. The change is audited (`connection.set_apps`) as
 * `portcullis apps <connection> on|off` is.
 */
import { api } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import type { ActionView } from '../types.ts';
import { useChange } from '../use-change.ts';
import { SectionHeading, type Server } from './server-label.tsx';

export function ConnectionApps({
  connection,
  server,
  apps,
  actions,
  canChange,
  onChanged,
}: {
  connection: string;
  server?: Server | undefined;
  apps: 'on' | 'off';
  actions: ActionView[];
  canChange: boolean;
  onChanged: (done: string) => void;
}) {
  const change = useChange(onChanged);
  const pages = actions.filter((a) => a.app !== undefined && a.state !== 'retired').length;
  const next = apps === 'on' ? 'off' : 'on';
  const turn = () =>
    change.run(
      () =>
        api('POST', `/connections/${encodeURIComponent(connection)}/apps`, {
          apps: next,
        }),
      `MCP Apps of ${connection}: turned ${next}.`,
    );
  return (
    <section class="panel" aria-labelledby="apps">
      <SectionHeading id="apps" server={server}>
        MCP Apps
      </SectionHeading>
      <Problem error={change.error} />
      <p data-apps={apps}>
        {apps === 'on' ? (
          <>
            <b>On.</b> Its tools that name an app ({pages} {pages === 1 ? 'page' : 'pages'}) are
            served with it to hosts that render apps, each page as its review allows.
          </>
        ) : (
          <>
            <b>Off.</b> Its tools are served without their app, and its pages are neither listed nor
            read, whatever their review says.
          </>
        )}
      </p>
      <div class="actions">
        <button type="button" disabled={!canChange} onClick={turn}>
          Turn MCP Apps {next} <span class="skip">for {shown(connection)}</span>
        </button>
      </div>
    </section>
  );
}
