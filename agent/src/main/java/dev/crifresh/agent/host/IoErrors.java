package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Short human descriptions of I/O failures for read errors (no stack traces, no file contents). */
final class IoErrors {
    private IoErrors() {
    }

    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "missing";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
