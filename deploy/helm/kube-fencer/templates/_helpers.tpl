{{/* The chart's name, for labels. */}}
{{- define "kube-fencer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The release's full name: the prefix of every object it makes (RBAC included, so two releases never
share a role). A release named after the chart is not repeated (kube-fencer, not kube-fencer-kube-fencer).
*/}}
{{- define "kube-fencer.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kube-fencer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "kube-fencer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-fencer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "kube-fencer.labels" -}}
helm.sh/chart: {{ include "kube-fencer.chart" . }}
{{ include "kube-fencer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kube-fencer
{{- end }}

{{- define "kube-fencer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kube-fencer.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* "true" when the controller reaches the protected cluster through a kubeconfig (out-of-band). */}}
{{- define "kube-fencer.outOfBand" -}}
{{- if .Values.kubeconfigSecret.name }}true{{ end }}
{{- end }}

{{/*
"true" when this cluster is the one the fencer acts on, so the RBAC belongs here: in-cluster, or the
protected cluster's controller.enabled=false release. Not in the out-of-band mode's management cluster.
*/}}
{{- define "kube-fencer.rbacHere" -}}
{{- if and .Values.rbac.create (not (include "kube-fencer.outOfBand" .)) }}true{{ end }}
{{- end }}

{{- define "kube-fencer.leaseNamespace" -}}
{{- default .Release.Namespace .Values.leaderElection.namespace }}
{{- end }}

{{- define "kube-fencer.sealKeySecretName" -}}
{{- default (printf "%s-seal-key" (include "kube-fencer.fullname" .)) .Values.sealKey.existingSecret }}
{{- end }}

{{- define "kube-fencer.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Where the Ceph Secret and the kubeconfig are mounted. */}}
{{- define "kube-fencer.cephDir" -}}/etc/kube-fencer/ceph{{- end }}
{{- define "kube-fencer.kubeconfigDir" -}}/etc/kube-fencer/kubeconfig{{- end }}

{{/*
Values that cannot work together fail the render with one line, before anything is applied.
*/}}
{{- define "kube-fencer.validate" -}}
{{- if .Values.controller.enabled }}
{{- if not .Values.clusterName }}
{{- fail "clusterName is required: the protected cluster's name, as in its machines' tag kubernetes.io/cluster/<name> (--set clusterName=...)" }}
{{- end }}
{{- if and .Values.alibaba.region (not .Values.alibaba.credentials.existingSecret) }}
{{- fail "alibaba.region is set but alibaba.credentials.existingSecret is not: the fencer needs the RAM user's AccessKey from a Secret" }}
{{- end }}
{{- if and .Values.ceph.mgrUrl .Values.ceph.networkFenceClass }}
{{- fail "set ceph.mgrUrl or ceph.networkFenceClass, not both: one Ceph, one way in" }}
{{- end }}
{{- if and .Values.ceph.networkFenceClass (not .Values.ceph.witness.id) }}
{{- fail "ceph.networkFenceClass needs ceph.witness.id: the fence is proven from Ceph's own blocklist, read as the witness" }}
{{- end }}
{{- if and (or .Values.ceph.mgrUrl .Values.ceph.witness.id) (not .Values.ceph.existingSecret) }}
{{- fail "ceph.existingSecret is required with ceph.mgrUrl or ceph.witness.id: the restful key, the mgr's certificate and the witness keyring come from it" }}
{{- end }}
{{- if and .Values.ceph.mgrUrl (not .Values.ceph.keyName) }}
{{- fail "ceph.keyName is required with ceph.mgrUrl: the restful key's name" }}
{{- end }}
{{- if and .Values.ceph.witness.id (not (or .Values.ceph.witness.monHost .Values.ceph.confInSecret)) }}
{{- fail "ceph.witness.id needs ceph.witness.monHost or ceph.confInSecret: where the witness finds the monitors" }}
{{- end }}
{{- $legacy := eq (toString (.Values.controller.requestDefaults.strategy | default "")) "legacy" }}
{{- if and (include "kube-fencer.rbacHere" .) (or .Values.controller.sweepRemediate $legacy) (not .Values.rbac.deleteVolumeAttachments) }}
{{- fail "controller.sweepRemediate and requestDefaults.strategy legacy delete VolumeAttachments: set rbac.deleteVolumeAttachments=true too (SAFETY.md rule 5)" }}
{{- end }}
{{- else }}
{{- if .Values.kubeconfigSecret.name }}
{{- fail "kubeconfigSecret.name needs controller.enabled: a release without the controller is the protected cluster's side" }}
{{- end }}
{{- end }}
{{- if and .Values.serviceAccount.createToken (not .Values.serviceAccount.create) }}
{{- fail "serviceAccount.createToken needs serviceAccount.create" }}
{{- end }}
{{- end }}
