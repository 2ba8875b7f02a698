/**
 * Requests written after the synonym table and the weights were settled on
 * `requests.ts`, and never tuned on: how search does on words it was not
 * shaped around. Same form as `requests.ts`.
 */
import type { LabelledRequest } from './requests.ts';

const u = (...names: string[]) => names.map((name) => `unikraft_${name}`);
const d = (...names: string[]) => names.map((name) => `daytona_${name}`);
const c = (...names: string[]) => names.map((name) => `coolify_${name}`);
const github = (...names: string[]) => names.map((name) => `github__${name}`);
const linear = (...names: string[]) => names.map((name) => `linear__${name}`);
const sentry = (...names: string[]) => names.map((name) => `sentry__${name}`);

export const HELD_OUT_REQUESTS: readonly LabelledRequest[] = [
  ['details of one unikraft instance', u('get_instance_by_uuid')],
  ['remove an old volume from unikraft', u('delete_volume_by_uuid', 'delete_volumes')],
  ['what volumes exist on unikraft', u('get_volumes')],
  ['drop a TLS certificate on unikraft', u('delete_certificate_by_uuid', 'delete_certificates')],
  ['new service group on unikraft', u('create_service_group')],
  [
    'save a file into the unikraft sandbox from my machine',
    u('sandbox_upload_file', 'sandbox_write_file'),
  ],
  ['list the commands started in the unikraft sandbox', u('sandbox_list_commands')],
  ['create a unikraft user', u('add_users')],
  ['resume a paused daytona sandbox', d('start_sandbox')],
  ['delete a daytona volume', d('delete_volume')],
  ['daytona sandbox details', d('get_sandbox')],
  ['rename or move a file in the daytona sandbox', d('toolbox_move_file')],
  ['remove a file from the daytona sandbox', d('toolbox_delete_file')],
  ['git status of the sandbox repository', d('toolbox_get_status')],
  ['make a new git branch in the daytona sandbox', d('toolbox_create_branch')],
  ['pull the latest commits into the sandbox repo', d('toolbox_pull_changes')],
  ['list my daytona api keys', d('list_api_keys')],
  ['regions I can run daytona sandboxes in', d('list_available_regions')],
  ['sandbox telemetry traces on daytona', d('get_sandbox_traces')],
  ['press a key combination in the sandbox desktop', d('toolbox_press_hotkey')],
  ['leave a daytona organization', d('leave_organization')],
  ['start a stopped coolify app', c('start_application_by_uuid')],
  ['delete an application from coolify', c('delete_application_by_uuid')],
  ['list coolify databases', c('list_databases')],
  ['restart a database on coolify', c('restart_database_by_uuid')],
  ['mysql database on coolify', c('create_database_mysql')],
  ['servers connected to coolify', c('list_servers')],
  ['remove a server from coolify', c('delete_server_by_uuid')],
  ['environment variables of a coolify application', c('list_envs_by_application_uuid')],
  ['logs of a coolify database', c('get_database_logs_by_uuid')],
  ['tags on coolify', c('list_tags')],
  ['edit a coolify application settings', c('update_application_by_uuid')],
  ['list my github repository branches', github('list_branches')],
  ['make a new branch on github', github('create_branch')],
  ['look through code on github for a function name', github('search_code')],
  ['recent commits on a github branch', github('list_commits')],
  ['fork a github repository', github('fork_repository')],
  ['comments on a linear issue', linear('list_comments')],
  ['linear projects', linear('list_projects')],
  ['sentry projects in my organization', sentry('find_projects')],
  ['details of a distributed trace in sentry', sentry('get_trace_details')],
];
