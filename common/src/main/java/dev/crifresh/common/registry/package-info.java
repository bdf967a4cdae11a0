/**
 * Registry credentials as containerd reads them: config files, hosts, fingerprints. It reads no file itself (the
 * {@code hosts.toml} tree comes through the {@code PullCredentials.HostsFiles} seam), yet it is not {@code @NoIo}: it
 * catches the seam's {@code UncheckedIOException}, since a directory that cannot be listed is a doubt.
 */
@MayUse({})
package dev.crifresh.common.registry;

import dev.crifresh.common.arch.MayUse;
