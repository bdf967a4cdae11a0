{{/* Names, labels, images and the key Secrets shared by every template. */}}

{{- define "crifresh.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crifresh.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "crifresh.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels; call with (dict "ctx" $ "component" "agent"). */}}
{{- define "crifresh.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crifresh.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Full labels; call with (dict "ctx" $ "component" "agent"). */}}
{{- define "crifresh.labels" -}}
helm.sh/chart: {{ include "crifresh.chart" .ctx }}
{{ include "crifresh.selectorLabels" . }}
app.kubernetes.io/part-of: crifresh
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Image reference <registry>/<repository>:<tag>[@<digest>] (no registry: <repository> is the whole name);
call with (dict "ctx" $ "image" .Values.image.agent). */}}
{{- define "crifresh.image" -}}
{{- $tag := default .ctx.Chart.AppVersion .image.tag -}}
{{- $registry := .ctx.Values.image.registry | default "" | trimSuffix "/" -}}
{{- $name := ternary (printf "%s/%s" $registry .image.repository) .image.repository (ne $registry "") -}}
{{- if .image.digest -}}
{{- printf "%s:%s@%s" $name $tag .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $name $tag -}}
{{- end -}}
{{- end -}}

{{- define "crifresh.agent.fullname" -}}
{{- printf "%s-agent" (include "crifresh.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crifresh.coordinator.fullname" -}}
{{- printf "%s-coordinator" (include "crifresh.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crifresh.agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.agent.create -}}
{{- default (include "crifresh.agent.fullname" .) .Values.serviceAccount.agent.name -}}
{{- else -}}
{{- required "serviceAccount.agent.name is required when serviceAccount.agent.create is false" .Values.serviceAccount.agent.name -}}
{{- end -}}
{{- end -}}

{{- define "crifresh.coordinator.serviceAccountName" -}}
{{- if .Values.serviceAccount.coordinator.create -}}
{{- default (include "crifresh.coordinator.fullname" .) .Values.serviceAccount.coordinator.name -}}
{{- else -}}
{{- required "serviceAccount.coordinator.name is required when serviceAccount.coordinator.create is false" .Values.serviceAccount.coordinator.name -}}
{{- end -}}
{{- end -}}

{{/*
Key Secrets. `keys init` writes these fixed names (DESIGN: shared names); existing Secrets are used
as given. Setting only one of the two existing Secrets is refused: a generated trust bundle could
not contain the public key of a signing key it never saw.
*/}}
{{- define "crifresh.keys.validate" -}}
{{- if and .Values.keys.existingSecret (not .Values.keys.existingTrustSecret) -}}
{{- fail "keys.existingSecret is set but keys.existingTrustSecret is not: set both, or neither to generate both" -}}
{{- end -}}
{{- if and .Values.keys.existingTrustSecret (not .Values.keys.existingSecret) -}}
{{- fail "keys.existingTrustSecret is set but keys.existingSecret is not: set both, or neither to generate both" -}}
{{- end -}}
{{- end -}}

{{- define "crifresh.keys.signingSecretName" -}}
{{- default "crifresh-signing-key" .Values.keys.existingSecret -}}
{{- end -}}

{{- define "crifresh.keys.trustSecretName" -}}
{{- default "crifresh-trust-bundle" .Values.keys.existingTrustSecret -}}
{{- end -}}

{{- define "crifresh.keys.generate" -}}
{{- if and .Values.keys.initJob.enabled (not .Values.keys.existingSecret) (not .Values.keys.existingTrustSecret) -}}
true
{{- end -}}
{{- end -}}

{{/* Where the agent and the coordinator find the mounted key material. */}}
{{- define "crifresh.paths.signingDir" -}}/etc/crifresh/signing{{- end -}}
{{- define "crifresh.paths.trustDir" -}}/etc/crifresh/trust{{- end -}}
{{- define "crifresh.paths.talosDir" -}}/etc/crifresh/talos{{- end -}}

{{/* The coordinator's `--credential-secret NS/NAME`, split; fails on a malformed value. */}}
{{- define "crifresh.coordinator.credentialSecretParts" -}}
{{- $parts := splitList "/" .Values.coordinator.credentialSecret -}}
{{- if or (ne (len $parts) 2) (not (index $parts 0)) (not (index $parts 1)) -}}
{{- fail (printf "coordinator.credentialSecret must be NAMESPACE/NAME, got %q" .Values.coordinator.credentialSecret) -}}
{{- end -}}
{{- toJson $parts -}}
{{- end -}}

{{/* The pull proof's probe namespace: coordinator.gates.pullProof.namespace, or the release namespace. */}}
{{- define "crifresh.coordinator.probeNamespace" -}}
{{- default .Release.Namespace .Values.coordinator.gates.pullProof.namespace -}}
{{- end }}
