package dev.crifresh.common.attest;

import java.util.List;

/** JSON: {@code {"digest":"sha256:..","files":[FileClaim...]}}. */
public record ConfigClaim(String digest, List<FileClaim> files) {
    public ConfigClaim {
        files = List.copyOf(files);
    }
}
