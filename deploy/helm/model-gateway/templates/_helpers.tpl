{{/* Names and labels. */}}
{{- define "gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gateway.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "gateway.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "gateway.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gateway.labels" -}}
{{ include "gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "gateway.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "gateway.masterKeySecretName" -}}
{{- .Values.masterKey.existingSecret | default (printf "%s-master-key" (include "gateway.fullname" .)) -}}
{{- end -}}

{{/* The pod's grace period: the process's own deadline (SHUTDOWN_TIMEOUT_MS), what runs before it, and a margin. */}}
{{- define "gateway.gracePeriodSeconds" -}}
{{- $deadline := div (add .shutdownTimeoutMs 999) 1000 -}}
{{- add $deadline (.preStopSleepSeconds | default 0) 10 -}}
{{- end -}}

{{/*
Environment of every gateway container: the ConfigMap, then what comes from Secrets. `dict "root" $ "own" <map>`:
`own` holds the container's own plain variables.
*/}}
{{- define "gateway.env" -}}
{{- $root := .root -}}
envFrom:
  - configMapRef:
      name: {{ include "gateway.fullname" $root }}-config
{{- with $root.Values.extraEnvFrom }}
{{ toYaml . | indent 2 }}
{{- end }}
env:
  - name: MASTER_KEYS
    valueFrom:
      secretKeyRef:
        name: {{ include "gateway.masterKeySecretName" $root }}
        key: {{ if $root.Values.masterKey.existingSecret }}{{ $root.Values.masterKey.existingSecretKey }}{{ else }}MASTER_KEYS{{ end }}
{{- if $root.Values.mongodb.existingSecret }}
  - name: MONGODB_URI
    valueFrom:
      secretKeyRef:
        name: {{ $root.Values.mongodb.existingSecret }}
        key: {{ $root.Values.mongodb.existingSecretKey }}
{{- end }}
{{- if $root.Values.redis.existingSecret }}
  - name: REDIS_URL
    valueFrom:
      secretKeyRef:
        name: {{ $root.Values.redis.existingSecret }}
        key: {{ $root.Values.redis.existingSecretKey }}
{{- end }}
{{- with $root.Values.redis.sentinelPasswordSecret.name }}
  - name: REDIS_SENTINEL_PASSWORD
    valueFrom:
      secretKeyRef:
        name: {{ . }}
        key: {{ $root.Values.redis.sentinelPasswordSecret.key }}
{{- end }}
{{- range $name, $value := .own }}
  - name: {{ $name }}
    value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/* The key prefix the gateway gives BullMQ: REDIS_PREFIX, hash-tagged on a Redis Cluster (AppConfig.redisKeyPrefix). */}}
{{- define "gateway.redisKeyPrefix" -}}
{{- if .Values.redis.clusterNodes -}}{{ printf "{%s}" .Values.redis.prefix }}{{- else -}}{{ .Values.redis.prefix }}{{- end -}}
{{- end -}}

{{/* A models catalogue given in values (modelsConfig), mounted where MODELS_CONFIG points. */}}
{{- define "gateway.modelsVolume" -}}
volumes:
  - name: models-config
    configMap:
      name: {{ include "gateway.fullname" . }}-models
{{- end -}}

{{- define "gateway.modelsMount" -}}
volumeMounts:
  - name: models-config
    mountPath: /app/config/deployment
    readOnly: true
{{- end -}}

{{/* Restarts pods when their configuration changes. */}}
{{- define "gateway.configChecksum" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- end -}}
