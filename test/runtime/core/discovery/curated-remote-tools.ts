/**
 * Tool lists for the curated remote servers (GitHub, Linear, Sentry), as a
 * remote connection would pin them: the tools' names as those servers
 * publish them, descriptions and parameters written here in short (the
 * curated definitions carry no tools; a real connection discovers them).
 * Enough for search to be measured across native and remote actions alike.
 */
import type { Classification } from '../../../../generated/catalog-format.ts';

export interface FixtureTool {
  name: string;
  classification: Classification;
  description: string;
  parameters: string[];
}

const tool = (
  name: string,
  classification: Classification,
  description: string,
  parameters: string[] = [],
): FixtureTool => ({ name, classification, description, parameters });

/** The connection name each server is connected under, and its tools. */
export const CURATED_REMOTE_TOOLS: Record<'github' | 'linear' | 'sentry', FixtureTool[]> = {
  github: [
    tool('get_me', 'read', 'Details of the authenticated GitHub user.'),
    tool('search_repositories', 'read', 'Search GitHub repositories by keywords.', [
      'query',
      'page',
    ]),
    tool('create_repository', 'write', 'Create a new repository for the user or an organization.', [
      'name',
      'description',
      'private',
      'organization',
    ]),
    tool('fork_repository', 'write', 'Fork a repository into your account or an organization.', [
      'owner',
      'repo',
      'organization',
    ]),
    tool(
      'get_file_contents',
      'read',
      'Read the contents of a file or a directory listing in a repository.',
      ['owner', 'repo', 'path', 'ref'],
    ),
    tool(
      'create_or_update_file',
      'write',
      'Create a file or update it in a repository with a commit.',
      ['owner', 'repo', 'path', 'content', 'message', 'branch', 'sha'],
    ),
    tool('delete_file', 'destructive', 'Delete a file from a repository with a commit.', [
      'owner',
      'repo',
      'path',
      'message',
      'branch',
    ]),
    tool('push_files', 'write', 'Push several files to a branch in one commit.', [
      'owner',
      'repo',
      'branch',
      'files',
      'message',
    ]),
    tool('create_branch', 'write', 'Create a new branch in a repository.', [
      'owner',
      'repo',
      'branch',
      'from_branch',
    ]),
    tool('list_branches', 'read', 'List the branches of a repository.', ['owner', 'repo']),
    tool('list_commits', 'read', 'List the commits of a branch of a repository.', [
      'owner',
      'repo',
      'sha',
      'author',
    ]),
    tool('get_commit', 'read', 'Details of one commit, with its diff.', ['owner', 'repo', 'sha']),
    tool('search_code', 'read', 'Search code across GitHub repositories.', ['query']),
    tool('list_issues', 'read', 'List the issues of a repository, filtered by state and labels.', [
      'owner',
      'repo',
      'state',
      'labels',
    ]),
    tool('get_issue', 'read', 'Details of one issue of a repository.', [
      'owner',
      'repo',
      'issue_number',
    ]),
    tool('create_issue', 'write', 'Open a new issue in a repository.', [
      'owner',
      'repo',
      'title',
      'body',
      'labels',
      'assignees',
    ]),
    tool('update_issue', 'write', 'Edit an issue: title, body, state, labels or assignees.', [
      'owner',
      'repo',
      'issue_number',
      'state',
    ]),
    tool('add_issue_comment', 'write', 'Add a comment to an issue or a pull request.', [
      'owner',
      'repo',
      'issue_number',
      'body',
    ]),
    tool('search_issues', 'read', 'Search issues and pull requests across GitHub.', ['query']),
    tool('list_pull_requests', 'read', 'List the pull requests of a repository.', [
      'owner',
      'repo',
      'state',
      'base',
    ]),
    tool('get_pull_request', 'read', 'Details of one pull request.', [
      'owner',
      'repo',
      'pullNumber',
    ]),
    tool('get_pull_request_diff', 'read', 'The diff of a pull request.', [
      'owner',
      'repo',
      'pullNumber',
    ]),
    tool('create_pull_request', 'write', 'Open a pull request from one branch into another.', [
      'owner',
      'repo',
      'title',
      'head',
      'base',
      'body',
    ]),
    tool('merge_pull_request', 'write', 'Merge a pull request.', [
      'owner',
      'repo',
      'pullNumber',
      'merge_method',
    ]),
    tool(
      'create_pull_request_review',
      'write',
      'Review a pull request: approve, request changes or comment.',
      ['owner', 'repo', 'pullNumber', 'event', 'body'],
    ),
    tool('list_workflow_runs', 'read', 'List the GitHub Actions workflow runs of a repository.', [
      'owner',
      'repo',
      'workflow_id',
      'status',
    ]),
    tool('rerun_workflow_run', 'write', 'Re-run a GitHub Actions workflow run.', [
      'owner',
      'repo',
      'run_id',
    ]),
    tool('get_job_logs', 'read', 'Logs of the jobs of a GitHub Actions workflow run.', [
      'owner',
      'repo',
      'run_id',
      'job_id',
    ]),
    tool(
      'list_code_scanning_alerts',
      'read',
      'List the code scanning security alerts of a repository.',
      ['owner', 'repo', 'severity'],
    ),
    tool('list_dependabot_alerts', 'read', 'List the Dependabot alerts of a repository.', [
      'owner',
      'repo',
      'severity',
    ]),
    tool('list_releases', 'read', 'List the releases of a repository.', ['owner', 'repo']),
  ],
  linear: [
    tool(
      'list_issues',
      'read',
      'List Linear issues, filtered by team, assignee, state or project.',
      ['team', 'assignee', 'state', 'project'],
    ),
    tool('get_issue', 'read', 'Details of one Linear issue.', ['id']),
    tool('create_issue', 'write', 'Create a Linear issue in a team.', [
      'title',
      'team',
      'description',
      'assignee',
      'priority',
    ]),
    tool('update_issue', 'write', 'Update a Linear issue: state, assignee, priority or estimate.', [
      'id',
      'state',
      'assignee',
      'priority',
    ]),
    tool('list_comments', 'read', 'List the comments on a Linear issue.', ['issueId']),
    tool('create_comment', 'write', 'Comment on a Linear issue.', ['issueId', 'body']),
    tool('list_teams', 'read', 'List the teams of the Linear workspace.'),
    tool('list_projects', 'read', 'List Linear projects.', ['team']),
    tool('get_project', 'read', 'Details of one Linear project.', ['query']),
    tool('create_project', 'write', 'Create a Linear project.', ['name', 'team', 'description']),
    tool('list_users', 'read', 'List the users of the Linear workspace.'),
    tool('list_issue_statuses', 'read', 'List the workflow states a team uses for issues.', [
      'team',
    ]),
    tool('list_issue_labels', 'read', 'List the labels issues can have.', ['team']),
    tool('list_cycles', 'read', "List a team's cycles (sprints).", ['teamId', 'type']),
    tool('search_documentation', 'read', "Search Linear's documentation.", ['query']),
  ],
  sentry: [
    tool('whoami', 'read', 'The Sentry user the connection is signed in as.'),
    tool('find_organizations', 'read', 'List the Sentry organizations you can reach.'),
    tool('find_projects', 'read', 'List the projects of a Sentry organization.', [
      'organizationSlug',
    ]),
    tool('find_releases', 'read', 'List the releases of a Sentry organization or project.', [
      'organizationSlug',
      'projectSlug',
    ]),
    tool('search_issues', 'read', 'Search the error issues Sentry grouped, in plain words.', [
      'organizationSlug',
      'naturalLanguageQuery',
    ]),
    tool('search_events', 'read', 'Search error events and logs, and count them.', [
      'organizationSlug',
      'naturalLanguageQuery',
    ]),
    tool(
      'get_issue_details',
      'read',
      'Details of one Sentry issue: its stack trace and latest event.',
      ['organizationSlug', 'issueId'],
    ),
    tool('get_trace_details', 'read', 'The spans and timing of one distributed trace.', [
      'organizationSlug',
      'traceId',
    ]),
    tool(
      'update_issue',
      'write',
      'Resolve, ignore or assign a Sentry issue, or change its status.',
      ['organizationSlug', 'issueId', 'status', 'assignedTo'],
    ),
    tool('create_project', 'write', 'Create a Sentry project for a team.', [
      'organizationSlug',
      'teamSlug',
      'name',
      'platform',
    ]),
    tool('find_dsns', 'read', 'List the DSN client keys of a Sentry project.', [
      'organizationSlug',
      'projectSlug',
    ]),
    tool(
      'analyze_issue_with_seer',
      'read',
      "Ask Sentry's Seer for the root cause of an issue and a fix.",
      ['organizationSlug', 'issueId'],
    ),
  ],
};
