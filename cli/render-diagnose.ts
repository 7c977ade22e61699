/** A diagnosis as a readable tree, then the blocker, the next safe action and the notes. */
import type { Diagnosis, EventLine, TreeNode } from '../lib/domain/diagnose/model.js';

const eventLines = (e: EventLine): string[] => {
  const count = e.count > 1 ? ` ×${e.count}` : '';
  const meta = [e.source, e.lastSeen].filter(Boolean).join(', ');
  const head = `event ${e.type} ${e.reason}${count}${meta ? ` (${meta})` : ''}: ${e.message}`;
  return e.signal ? [head, `  ⇒ ${e.signal.meaning}`] : [head];
};

function renderNode(node: TreeNode, prefix: string, last: boolean, root: boolean, out: string[]): void {
  const name = node.namespace ? `${node.namespace}/${node.name}` : node.name;
  out.push(`${prefix}${root ? '' : last ? '└─ ' : '├─ '}${node.kind} ${name}: ${node.state}`);
  const inner = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
  const bar = node.children.length > 0 ? '│  ' : '   ';
  for (const d of node.details) out.push(`${inner}${bar}${d}`);
  for (const e of node.events) for (const line of eventLines(e)) out.push(`${inner}${bar}${line}`);
  node.children.forEach((child, i) => {
    renderNode(child, inner, i === node.children.length - 1, false, out);
  });
}

export function renderDiagnosis(d: Diagnosis): string {
  const out: string[] = [];
  renderNode(d.tree, '', true, true, out);
  out.push('');
  out.push(d.blocker ? `BLOCKER  [${d.blocker.code}] ${d.blocker.summary}` : 'BLOCKER  none found');
  out.push(`NEXT     ${d.nextAction.description}`);
  if (d.nextAction.command) out.push(`         $ ${d.nextAction.command}`);
  for (const note of d.notes) out.push(`NOTE     ${note}`);
  return out.join('\n');
}
