package dev.crifresh.archfixture.pure;

import dev.crifresh.archfixture.seam.Seam;

public final class Pure {
    public Seam seam;
}
