package dev.crifresh.common.attest;

import java.time.Instant;

/** JSON: {@code {"path":..,"mtime":"RFC 3339","sha256":"hex"}}. */
public record FileClaim(String path, Instant mtime, String sha256) {
}
