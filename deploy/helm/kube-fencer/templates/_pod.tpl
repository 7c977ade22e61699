{{/*
The Ceph settings as FENCER_CEPH_* (docs/ceph.md): plain values from ceph.*, secrets as files of the
mounted ceph.existingSecret (the fencer reads FENCER_CEPH_KEY_FILE, FENCER_CEPH_CA_FILE and the
witness keyring from there).
*/}}
{{- define "kube-fencer.cephEnv" -}}
{{- $ceph := .Values.ceph }}
{{- $dir := include "kube-fencer.cephDir" . }}
{{- if $ceph.mgrUrl }}
- name: FENCER_CEPH_MGR_URL
  value: {{ $ceph.mgrUrl | quote }}
- name: FENCER_CEPH_KEY_NAME
  value: {{ $ceph.keyName | quote }}
- name: FENCER_CEPH_KEY_FILE
  value: {{ $dir }}/key
- name: FENCER_CEPH_CA_FILE
  value: {{ $dir }}/ca.crt
{{- with $ceph.tlsServerName }}
- name: FENCER_CEPH_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- with $ceph.certSha256 }}
- name: FENCER_CEPH_CERT_SHA256
  value: {{ . | quote }}
{{- end }}
{{- with $ceph.blocklistExpireSeconds }}
- name: FENCER_CEPH_BLOCKLIST_EXPIRE_SECONDS
  value: {{ . | toString | quote }}
{{- end }}
{{- end }}
{{- with $ceph.networkFenceClass }}
- name: FENCER_CEPH_NETWORK_FENCE_CLASS
  value: {{ . | quote }}
{{- end }}
{{- with $ceph.networkFenceTimeoutSeconds }}
- name: FENCER_CEPH_NETWORK_FENCE_TIMEOUT_SECONDS
  value: {{ . | toString | quote }}
{{- end }}
{{- if $ceph.extraRanges }}
- name: FENCER_CEPH_EXTRA_RANGES
  value: {{ $ceph.extraRanges | toJson | quote }}
{{- end }}
{{- if $ceph.clusterIds }}
- name: FENCER_CEPH_CLUSTER_ID
  value: {{ join "," $ceph.clusterIds | quote }}
{{- end }}
{{- if $ceph.witness.id }}
- name: FENCER_CEPH_WITNESS_ID
  value: {{ $ceph.witness.id | quote }}
- name: FENCER_CEPH_WITNESS_KEYRING
  value: {{ $dir }}/keyring
{{- with $ceph.witness.monHost }}
- name: FENCER_CEPH_MON_HOST
  value: {{ . | quote }}
{{- end }}
{{- if $ceph.confInSecret }}
- name: FENCER_CEPH_CONF
  value: {{ $dir }}/ceph.conf
{{- end }}
{{- end }}
{{- end }}

{{/*
Where the replicas may run: never two on one node (podAntiAffinity: hard), spread over zones where the
nodes have them. The chart adds its pods' labelSelector to each spread constraint that has none.
*/}}
{{- define "kube-fencer.placement" -}}
{{- $selector := include "kube-fencer.selectorLabels" . | fromYaml }}
{{- if .Values.affinity }}
affinity:
  {{- toYaml .Values.affinity | nindent 2 }}
{{- else if eq .Values.podAntiAffinity "hard" }}
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- toYaml $selector | nindent 12 }}
{{- else if eq .Values.podAntiAffinity "soft" }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- toYaml $selector | nindent 14 }}
{{- end }}
{{- $constraints := list }}
{{- range .Values.topologySpreadConstraints }}
{{- $constraints = append $constraints (merge (dict) . (dict "labelSelector" (dict "matchLabels" $selector))) }}
{{- end }}
{{- with $constraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
