/**
 * A process that appends audit events to a journal and dies by SIGKILL
 * before any fold: argv[2] the store (a SQLite file or a PostgreSQL URL),
 * argv[3] the journal folder, argv[4] how many events. It prints `appended`
 * after the last append returned, then kills itself.
 */
import { AuditJournal } from '../../../runtime/adapters/journal/audit-journal.ts';
import { openStore } from '../../../runtime/adapters/sql/open-store.ts';
import { variedAuditEvents } from '../activity-events.ts';

const [location = '', folder = '', count = '0'] = process.argv.slice(2);
const store = await openStore(
  location.startsWith('postgres') ? { databaseUrl: location } : { sqliteFile: location },
);
const journal = await AuditJournal.open({ folder, store });
const events = variedAuditEvents().slice(0, Number(count));
// In one turn: no fold timer can run before the kill.
for (const event of events) await journal.append(event);
// Pipes are written synchronously on Linux: the line is out before the kill.
process.stdout.write('appended\n');
process.kill(process.pid, 'SIGKILL');
