package dev.crifresh.archfixture.seam;

import java.io.File;

public final class Seam {
    public File file;
}
