/**
 * Activity: agents' calls, refusals and latency (p50, p95) over a chosen
 * range, for the whole workspace, one connection or one agent. The gateway
 * sums the audit log in its store per time bucket; this page draws the
 * figures (uPlot) and gives them as text too: the range's totals, and every
 * bucket with calls in a table under the charts.
 */
import '../activity.css';
import { useMemo, useState } from 'preact/hooks';
import { api, queryOf } from '../api.ts';
import { Chart, type ChartSeries } from '../chart.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import type { Agent, ConnectionSummary } from '../types.ts';
import { useLoad } from '../use-load.ts';

interface Figures {
  calls: number;
  refusals: number;
  errors: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

interface Activity {
  range: string;
  bucketSeconds: number;
  since: string;
  until: string;
  points: Array<Figures & { at: string }>;
  totals: Figures;
}

const RANGES = [
  ['1h', 'Last hour'],
  ['6h', 'Last 6 hours'],
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
] as const;

export function ActivityPage() {
  const [of, setOf] = useState('');
  const [range, setRange] = useState('24h');
  const [kind, name] = of ? [of.slice(0, of.indexOf(':')), of.slice(of.indexOf(':') + 1)] : [];
  const query = queryOf({
    range,
    ...(kind === 'connection' ? { connection: name } : kind === 'agent' ? { agent: name } : {}),
  });
  const { data, error } = useLoad(() => api<Activity>('GET', `/activity${query}`), query);
  const agents = useLoad(() => api<Agent[]>('GET', '/agents'), 'agents').data ?? [];
  const connections =
    useLoad(() => api<ConnectionSummary[]>('GET', '/connections'), 'connections').data ?? [];
  const charts = useMemo(() => (data ? chartsOf(data) : undefined), [data]);
  const value = (event: Event) => (event.currentTarget as HTMLSelectElement).value;
  return (
    <>
      <h1>Activity</h1>
      <form class="panel" aria-label="Chart choices" onSubmit={(event) => event.preventDefault()}>
        <div class="filters">
          <div>
            <label for="a-of">Show</label>
            <select id="a-of" value={of} onChange={(event) => setOf(value(event))}>
              <option value="">The whole workspace</option>
              <optgroup label="Connections">
                {connections.map((c) => (
                  <option key={c.connection.id} value={`connection:${c.connection.name}`}>
                    {shown(c.connection.name)}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Agents">
                {agents.map((a) => (
                  <option key={a.id} value={`agent:${a.name}`}>
                    {shown(a.name)}
                  </option>
                ))}
              </optgroup>
            </select>
          </div>
          <div>
            <label for="a-range">Time range</label>
            <select id="a-range" value={range} onChange={(event) => setRange(value(event))}>
              {RANGES.map(([id, label]) => (
                <option key={id} value={id}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        </div>
      </form>
      <Problem error={error} />
      {data && charts ? (
        <>
          <Totals figures={data.totals} />
          <section class="panel" aria-labelledby="calls-title">
            <h2 id="calls-title">Calls and refusals</h2>
            <p class="note">
              Agents' calls in each period of {bucketWords(data.bucketSeconds)}; refused calls never
              reached the service.
            </p>
            <Chart times={charts.times} series={charts.calls} />
          </section>
          <section class="panel" aria-labelledby="latency-title">
            <h2 id="latency-title">Latency</h2>
            <p class="note">
              Half the calls took less than p50, all but one in twenty less than p95 (from latency
              bins about 1.5× wide).
            </p>
            <Chart times={charts.times} series={charts.latency} unit="ms" />
          </section>
          <Buckets data={data} />
        </>
      ) : null}
    </>
  );
}

/** The figures of a range or a period, each a column of the totals and of the table per period. */
const FIGURES: Array<{ id: string; label: string; text: (figures: Figures) => string }> = [
  { id: 'calls', label: 'Calls', text: (f) => f.calls.toLocaleString() },
  { id: 'refusals', label: 'Refused', text: (f) => f.refusals.toLocaleString() },
  { id: 'errors', label: 'Failed', text: (f) => f.errors.toLocaleString() },
  { id: 'p50', label: 'p50', text: (f) => ms(f.p50Ms) },
  { id: 'p95', label: 'p95', text: (f) => ms(f.p95Ms) },
];

function Totals({ figures }: { figures: Figures }) {
  return (
    <table class="totals" aria-label="Totals for the range">
      <thead>
        <tr>
          {FIGURES.map((figure) => (
            <th key={figure.id} scope="col">
              {figure.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr data-totals="">
          {FIGURES.map((figure) => (
            <td key={figure.id} data-figure={figure.id}>
              {figure.text(figures)}
            </td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}

/** The figures as text: every bucket with calls, oldest first. */
function Buckets({ data }: { data: Activity }) {
  const busy = data.points.filter((point) => point.calls > 0);
  return (
    <details class="panel">
      <summary>
        The figures as a table (calls in {busy.length} of {data.points.length} periods of{' '}
        {bucketWords(data.bucketSeconds)})
      </summary>
      {busy.length > 0 ? (
        <table class="cards" aria-label="Figures per period">
          <thead>
            <tr>
              <th scope="col">From</th>
              {FIGURES.map((figure) => (
                <th key={figure.id} scope="col">
                  {figure.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {busy.map((point) => (
              <tr key={point.at} data-bucket={point.at}>
                <td data-label="From">
                  <ShownTime at={point.at} />
                </td>
                {FIGURES.map((figure) => (
                  <td key={figure.id} data-label={figure.label}>
                    {figure.text(point)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No calls in this range.</p>
      )}
    </details>
  );
}

function chartsOf(data: Activity): {
  times: number[];
  calls: ChartSeries[];
  latency: ChartSeries[];
} {
  const times = data.points.map((point) => Date.parse(point.at) / 1000);
  return {
    times,
    calls: [
      { label: 'Calls', values: data.points.map((p) => p.calls), color: '--accent' },
      { label: 'Refused', values: data.points.map((p) => p.refusals), color: '--error-line' },
    ],
    latency: [
      { label: 'p50', values: data.points.map((p) => p.p50Ms), color: '--ok-line' },
      {
        label: 'p95',
        values: data.points.map((p) => p.p95Ms),
        color: '--warn-line',
        dash: [6, 4],
      },
    ],
  };
}

function ms(value: number | null): string {
  return value === null ? '—' : `${value.toLocaleString()} ms`;
}

function bucketWords(seconds: number): string {
  if (seconds >= 86_400) return 'a day';
  if (seconds >= 3_600) return 'an hour';
  if (seconds >= 600) return '10 minutes';
  return 'a minute';
}
