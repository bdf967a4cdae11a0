package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.base.ProgressListener;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The CLI's log on stderr: every line carries its time, level and the run id. {@code text}:
 * {@code 2026-12-03T03:52:13.123Z INFO  run-3f9a1c0e [1/3] worker-b cordoned}; {@code json}: one object per
 * line, {@code {"time":…,"level":"INFO","run":"run-3f9a1c0e","msg":"[1/3] worker-b cordoned"}}, for log
 * collectors. Lines come from the coordinator's event loop and from the CLI's own thread.
 */
final class RunLog implements ProgressListener {
    enum Format { text, json }

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final PrintWriter err;
    private final Format format;
    private final String runId;
    private final Clock clock;

    RunLog(PrintWriter err, Format format, String runId, Clock clock) {
        this.err = err;
        this.format = format;
        this.runId = runId;
        this.clock = clock;
    }

    @Override
    public void line(String text) {
        log(Level.INFO, text);
    }

    @Override
    public void log(Level level, String text) {
        String time = DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.MILLIS));
        String line;
        if (format == Format.json) {
            ObjectNode o = JSON.createObjectNode();
            o.put("time", time);
            o.put("level", level.name());
            o.put("run", runId);
            o.put("msg", text);
            line = JSON.writeValueAsString(o);
        } else {
            line = time + " " + String.format("%-5s", level.name()) + " " + runId + " " + text;
        }
        synchronized (err) {
            err.println(line);
            err.flush();
        }
    }
}
