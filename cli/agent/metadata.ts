/**
 * `action=metadata`: the agent described in the fence-agents metadata format (a `<resource-agent>` with
 * its `<parameters>` and `<actions>`), which Pacemaker and pcs read to know what to pass, and which
 * validates against fence-agents' RelaxNG schema (lib/metadata.rng there; Debian installs it as
 * /usr/share/cluster/relaxng/metadata.rng). Written from the same table as the option parser.
 */
import { AGENT_NAME, type AgentParameter, commandLineForm, PARAMETERS } from './parameters.js';

const SHORTDESC = 'Fence agent for Kubernetes nodes on AWS EC2, Alibaba Cloud ECS and Ceph RBD (kube-fencer)';

/** What the agent does, and what it never does, for whoever configures it. */
export const LONGDESC = [
  `${AGENT_NAME} speaks the fence-agents protocol over kube-fencer's own fence (the fencer agent command).`,
  "off runs the same fence as fencer fence: it refuses a node that is Ready, whose Lease is fresh, whose machine another Node names or is not the cluster's, a control-plane node, or too many unhealthy nodes;",
  'otherwise it powers the machine off through the cloud API (and fences its Ceph RBD clients on the OSD blocklist),',
  'waits until the provider reports it off, then taints the node node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
  'and waits for its pods and VolumeAttachments to clear. It exits 0 only when that whole fence is done; a refusal or failure exits 1 with the reason on stderr.',
  'reboot is off: kube-fencer never powers a machine on, so the reboot ends with the machine proven off and starting it again is left to its provider, autoscaler or operator',
  '(fencer unfence then removes the taint once the node is Ready after the power cycle); on is refused with exit 1 for the same reason.',
  "status reports the machine's power as the provider sees it (0 on, 2 off, 1 unknown), list the nodes as node,instance-id,",
  'monitor that the API server and the provider answer. The plug is the Kubernetes node name;',
  'nodename and nodeid, which Pacemaker passes with every call, are accepted and ignored.',
].join(' ');

const VENDOR_URL = 'https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/';

/** Actions advertised; `on` is not (the agent refuses it), as fence agents without one leave it out. */
const ADVERTISED = ['off', 'reboot', 'status', 'list', 'list-status', 'monitor', 'metadata', 'validate-all'];

const xmlText = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** One `<parameter>`; `extra` marks the old name (`deprecated="1"`) or what a new name replaces (`obsoletes`). */
function parameterXml(p: AgentParameter, name = p.name, extra = ''): string {
  const required = p.required ? '1' : '0';
  const defaultAttribute = p.default === undefined ? '' : ` default="${xmlText(p.default)}"`;
  return [
    `\t<parameter name="${name}" unique="0" required="${required}"${extra}>`,
    `\t\t<getopt mixed="${xmlText(commandLineForm(p))}" />`,
    `\t\t<content type="${p.type}"${defaultAttribute} />`,
    `\t\t<shortdesc lang="en">${xmlText(p.shortdesc)}</shortdesc>`,
    '\t</parameter>',
  ].join('\n');
}

/** Every parameter; `plug` also under its old name `port`, as fencing.py writes the pair. */
function parametersXml(): string {
  return PARAMETERS.flatMap((p) =>
    p.name === 'plug'
      ? [parameterXml(p, 'port', ' deprecated="1"'), parameterXml(p, 'plug', ' obsoletes="port"')]
      : [parameterXml(p)],
  ).join('\n');
}

export function agentMetadata(): string {
  return [
    '<?xml version="1.0" ?>',
    `<resource-agent name="${AGENT_NAME}" shortdesc="${xmlText(SHORTDESC)}" >`,
    `<longdesc>${xmlText(LONGDESC)}</longdesc>`,
    `<vendor-url>${xmlText(VENDOR_URL)}</vendor-url>`,
    '<parameters>',
    parametersXml(),
    '</parameters>',
    '<actions>',
    ...ADVERTISED.map((action) => `\t<action name="${action}" />`),
    '</actions>',
    '</resource-agent>',
    '',
  ].join('\n');
}
