package dev.crifresh.coordinator.cli;

/** A command whose usage checks (the ones it runs before connecting) can run alone: {@link CoordinatorMain#usageError}. */
interface UsageChecked {
    /** @throws UsageException naming the bad input, as the command would exit 2 with */
    void checkUsage();
}
