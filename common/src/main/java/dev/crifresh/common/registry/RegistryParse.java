package dev.crifresh.common.registry;

import java.util.List;

/** The result of reading registry credentials from a config document: the credentials, or why not. */
public sealed interface RegistryParse {

    record Parsed(List<RegistryAuth> credentials) implements RegistryParse {
        public Parsed {
            credentials = List.copyOf(credentials);
        }
    }

    /** The message names the problem (line, key), never a credential. */
    record Failed(String message) implements RegistryParse {
    }
}
