package dev.crifresh.archfixture.high;

import dev.crifresh.archfixture.low.Low;

public final class High {
    public Low low;
}
