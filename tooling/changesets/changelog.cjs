// Changelog lines for `changeset version` (.changeset/config.json "changelog"): each changeset is one bullet, its
// text as written (a bold title, then 2-6 lines), without the commit hash the default writer prefixes, and the
// internal dependency bumps of a release are one line instead of one "Updated dependencies" line per changeset.

/** One changeset's bullet: the first line after "- ", the rest indented under it. */
async function getReleaseLine(changeset) {
  const [first, ...rest] = changeset.summary.trim().split('\n');
  return `- ${first}${rest.map((line) => (line.trim() ? `\n  ${line}` : '\n')).join('')}`;
}

/** One line listing the @neura/* packages this release moved to their new versions (the group is versioned together). */
async function getDependencyReleaseLine(_changesets, dependenciesUpdated) {
  if (dependenciesUpdated.length === 0) return '';
  return `- Updated dependencies: ${dependenciesUpdated.map((d) => `\`${d.name}@${d.newVersion}\``).join(', ')}`;
}

module.exports = { getReleaseLine, getDependencyReleaseLine };
