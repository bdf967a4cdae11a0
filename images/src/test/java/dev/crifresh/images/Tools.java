package dev.crifresh.images;

/** The Debian tools these tests drive; a missing one fails the test naming the package to install. */
final class Tools {

    private Tools() {
    }

    static void require(String... tools) {
        for (String tool : tools) {
            if (Command.which(tool) == null) {
                throw new AssertionError(tool + " is not installed: the images tests need Debian's buildah, debootstrap,"
                        + " containerd, runc and docker-registry (.ci/run installs them)");
            }
        }
    }

    static void requireRoot(String why) {
        String user = System.getProperty("user.name");
        if (!"root".equals(user)) {
            throw new AssertionError("the images tests run as root (" + why + "); running as " + user);
        }
    }
}
