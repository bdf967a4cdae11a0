package dev.crifresh.archfixture.low;

import dev.crifresh.archfixture.high.High;

public final class Low {
    public High high;
}
