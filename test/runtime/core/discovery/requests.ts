/**
 * Requests in plain words, as a person would ask an agent (not the
 * operation's name), each with the actions that answer it: any one of them
 * at rank 1 is a hit at 1. Across the three compiled providers and the
 * curated remote servers' tools (`curated-remote-tools.ts`).
 */

/** [what a person asks, the tool names that answer it] */
export type LabelledRequest = readonly [query: string, expected: readonly string[]];

const u = (...names: string[]) => names.map((name) => `unikraft_${name}`);
const d = (...names: string[]) => names.map((name) => `daytona_${name}`);
const c = (...names: string[]) => names.map((name) => `coolify_${name}`);
const github = (...names: string[]) => names.map((name) => `github__${name}`);
const linear = (...names: string[]) => names.map((name) => `linear__${name}`);
const sentry = (...names: string[]) => names.map((name) => `sentry__${name}`);

export const REQUESTS: readonly LabelledRequest[] = [
  // Unikraft Cloud: instances, volumes, certificates, services, the sandbox plugin.
  ['show me every unikernel I have running', u('get_instances')],
  ['boot my stopped VM again', u('start_instance_by_uuid', 'start_instances')],
  ['shut down a unikraft instance', u('stop_instance_by_uuid', 'stop_instances')],
  ['throw away an instance I no longer need', u('delete_instance_by_uuid', 'delete_instances')],
  [
    'what did my instance print to its console',
    u('get_instance_logs_by_uuid', 'get_instance_logs'),
  ],
  [
    'cpu and memory usage of an instance',
    u('get_instance_metrics_by_uuid', 'get_instance_metrics'),
  ],
  ['deploy a new unikernel from an image', u('create_instance')],
  ['which images can I deploy on unikraft', u('get_images')],
  ['make a persistent disk for my unikraft instances', u('create_volume')],
  ['mount a volume into an instance', u('attach_volume_by_uuid', 'attach_volumes')],
  ['unmount a volume from a machine', u('detach_volume_by_uuid', 'detach_volumes')],
  ['make a copy of a unikraft volume', u('clone_volume_by_uuid', 'clone_volumes')],
  ['upload a TLS certificate for my domain', u('create_certificate')],
  ['see the TLS certificates on unikraft', u('get_certificates')],
  ['how much of my unikraft quota is left', u('get_user', 'get_user_by_uuid')],
  [
    'set up autoscaling for a service group',
    u('create_autoscale_configuration_by_service_group_uuid', 'create_autoscale_configurations'),
  ],
  ['add a scaling policy to a unikraft service', u('create_autoscale_configuration_policy')],
  ['load balancer service groups I have on unikraft', u('get_service_groups')],
  ['is the unikraft api up', u('healthz')],
  [
    'block until my instance reaches the running state',
    u('wait_instance_by_uuid', 'wait_instances'),
  ],
  ['run a shell command inside the unikraft sandbox', u('sandbox_run_command')],
  ['send SIGTERM to a process in the unikraft sandbox', u('sandbox_signal_command')],
  ['write some text into a file in the unikraft sandbox', u('sandbox_write_file')],
  [
    'print the contents of a file in the unikraft sandbox',
    u('sandbox_read_file', 'sandbox_read_raw_file'),
  ],
  ['make a new folder in the unikraft sandbox', u('sandbox_create_directory')],
  [
    'feed input to a running command',
    [...u('sandbox_write_command_stdin'), ...d('toolbox_send_input')],
  ],
  [
    'output of a command that ran in the unikraft sandbox',
    u('sandbox_get_command_logs', 'sandbox_get_raw_command_log'),
  ],
  ['change the memory of a unikraft instance', u('update_instance_by_uuid', 'update_instances')],
  ['rename a volume on unikraft', u('update_volume_by_uuid', 'update_volumes')],
  ['instance templates I saved on unikraft', u('get_template_instances')],
  [
    'block until a sandbox command is done',
    u('sandbox_wait_for_command', 'sandbox_wait_for_command_with_timeout'),
  ],

  // Daytona: sandboxes, the toolbox inside them, organizations.
  ['spin up a new daytona sandbox', d('create_sandbox')],
  ['show all my daytona sandboxes', d('list_sandboxes')],
  ['tear down a daytona sandbox', d('delete_sandbox')],
  ['pause a daytona sandbox for now', d('pause_sandbox')],
  ['bring a stopped daytona sandbox back', d('start_sandbox')],
  ['halt my dev environment sandbox on daytona', d('stop_sandbox')],
  ['move an idle daytona sandbox to cold storage', d('archive_sandbox')],
  ['give a daytona sandbox more CPU and memory', d('resize_sandbox')],
  [
    'run a command in a daytona sandbox',
    d('toolbox_execute_command', 'toolbox_session_execute_command'),
  ],
  [
    'execute python code in a daytona sandbox',
    d('toolbox_code_run', 'toolbox_execute_interpreter_code'),
  ],
  ['clone a git repo into the daytona sandbox', d('toolbox_clone_repository')],
  ['commit my changes in the sandbox git repository', d('toolbox_commit_changes')],
  ['push the sandbox branch to the git remote', d('toolbox_push_changes')],
  ['what files are in a folder of the daytona sandbox', d('toolbox_list_files')],
  ['upload a file to a daytona sandbox', d('toolbox_upload_file', 'toolbox_upload_files')],
  [
    'download a file from the daytona sandbox',
    d('toolbox_download_file', 'toolbox_download_files'),
  ],
  [
    'grep for a string in the daytona sandbox files',
    d('toolbox_find_in_files', 'toolbox_search_files'),
  ],
  [
    'take a picture of the sandbox desktop',
    d('toolbox_take_screenshot', 'toolbox_take_compressed_screenshot'),
  ],
  ['click at a point on the sandbox screen', d('toolbox_click')],
  ['type some text with the keyboard in the sandbox', d('toolbox_type_text')],
  ['give me an ssh login for my daytona sandbox', d('create_ssh_access')],
  [
    'public link to reach a port in the daytona sandbox',
    d('get_port_preview_url', 'get_signed_port_preview_url'),
  ],
  ['save a daytona sandbox as a snapshot image', d('create_sandbox_snapshot')],
  ['which daytona snapshot images exist', d('get_all_snapshots')],
  ['new daytona api key', d('create_api_key')],
  ['revoke a daytona api key', d('delete_api_key')],
  ['invite someone to my daytona organization', d('create_organization_invitation')],
  ['kick a member out of the daytona organization', d('delete_organization_member')],
  ['who is in my daytona organization', d('list_organization_members')],
  ['audit trail of my daytona organization', d('get_organization_audit_logs')],
  ['how much compute has my daytona organization used', d('get_organization_usage_overview')],
  ['make a shared volume on daytona', d('create_volume')],
  ['stop a daytona sandbox automatically after it idles for a while', d('set_autostop_interval')],
  ['build output of a daytona sandbox', d('get_build_logs', 'get_build_logs_url')],
  ['duplicate a daytona sandbox with its state', d('fork_sandbox')],
  ['set labels on a daytona sandbox', d('replace_labels')],
  ['add a private docker registry to daytona', d('create_registry')],
  ['start recording the sandbox screen', d('toolbox_start_recording')],
  ['switch the sandbox repository to another git branch', d('toolbox_checkout_branch')],
  [
    'open a terminal in the daytona sandbox',
    d('toolbox_create_pty_session', 'toolbox_create_session'),
  ],
  ['back up a daytona sandbox', d('create_backup')],

  // Coolify: applications, databases, servers, projects, the team.
  ['ship my app on coolify', c('deploy_by_tag_or_uuid', 'start_application_by_uuid')],
  ['what applications run on coolify', c('list_applications')],
  ['reboot a coolify application', c('restart_application_by_uuid')],
  ['take a coolify application offline', c('stop_application_by_uuid')],
  ['what is my coolify app printing', c('get_application_logs_by_uuid')],
  ['spin up a new postgres database on coolify', c('create_database_postgresql')],
  ['create a redis on coolify', c('create_database_redis')],
  ['add an environment variable to a coolify app', c('create_env_by_application_uuid')],
  [
    'set several environment variables of a coolify app at once',
    c('update_envs_by_application_uuid'),
  ],
  ['go back to the previous version of a coolify app', c('rollback_application_by_uuid')],
  ['abort a coolify deployment in progress', c('cancel_deployment_by_uuid')],
  ['which deployments are running on coolify', c('list_deployments')],
  ['back up a coolify database now', c('create_database_backup', 'run_database_storage_backup')],
  ['add a server to coolify', c('create_server')],
  ['provision a hetzner machine for coolify', c('create_hetzner_server')],
  ['check that a coolify server is reachable', c('validate_server_by_uuid')],
  ['free disk space on a coolify server by pruning docker', c('run_server_docker_cleanup')],
  ['restart the reverse proxy of a coolify server', c('restart_server_proxy')],
  ['start a new coolify project', c('create_project')],
  ['remove a coolify project', c('delete_project_by_uuid')],
  ['members of my coolify team', c('get_token_team_members', 'get_members_by_team_id')],
  [
    'coolify slack alerts settings',
    c('get_current_team_slack_notifications', 'update_current_team_slack_notifications'),
  ],
  ['store an ssh private key in coolify', c('create_private_key')],
  ['connect an S3 bucket to coolify for backups', c('create_s3_storage')],
  ['schedule a cron job for a coolify app', c('create_scheduled_task_by_application_uuid')],
  ['run a docker image on coolify without git', c('create_dockerimage_application')],
  ['deploy a public git repository on coolify', c('create_public_application')],
  ['which coolify version is installed', c('version')],
  ['move a coolify application to another server', c('migrate_application_by_uuid')],
  ['domains served by a coolify server', c('get_domains_by_server_uuid')],
  ['drop a coolify database', c('delete_database_by_uuid')],

  // The curated remote servers' tools.
  ['open a bug report in a github repo', github('create_issue')],
  ['what pull requests are open in this github repository', github('list_pull_requests')],
  ['merge the PR on github', github('merge_pull_request')],
  ['approve a github pull request', github('create_pull_request_review')],
  ['read a file in a github repo', github('get_file_contents')],
  ['find github repositories about kubernetes', github('search_repositories')],
  ['why did my github actions run fail, show the job output', github('get_job_logs')],
  ['vulnerable dependencies alerts on github', github('list_dependabot_alerts')],
  ['reply on a github issue', github('add_issue_comment')],
  ['close a github issue', github('update_issue')],
  ['which github user am I signed in as', github('get_me')],
  ['file a new linear ticket', linear('create_issue')],
  ['what linear issues are assigned to me', linear('list_issues')],
  ['move a linear issue to done', linear('update_issue')],
  ['what sprint is the team in on linear', linear('list_cycles')],
  ['teams in linear', linear('list_teams')],
  ['recent errors in production on sentry', sentry('search_issues', 'search_events')],
  ['stack trace of a sentry error', sentry('get_issue_details')],
  ['mark a sentry issue resolved', sentry('update_issue')],
  ['why does this sentry crash happen, root cause', sentry('analyze_issue_with_seer')],
  ['sentry client key dsn of a project', sentry('find_dsns')],
  ['which releases went out on sentry', sentry('find_releases')],
];
