package dev.crifresh.archfixture.pure;

import dev.crifresh.archfixture.seam.Seam;
import java.nio.charset.Charset;

public final class Pure {
    public Seam seam;
    public Charset charset;
}
