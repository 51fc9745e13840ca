package dev.pulsebus.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes allocated per operation that each row may not exceed ({@code alloc-budget.json}): what CI gates
 * on, because allocation is a property of the code and not of the machine's speed. A budget of 0 means
 * the row allocates nothing (below {@link #ZERO} B/op, which is what JMH's profiler shows for code that
 * allocates nothing); any other budget is the bytes measured with 10 % headroom. A row the file does
 * not name, or without an allocation figure, is not gated.
 */
record AllocBudget(Map<String, Double> bytesPerOp) {

    /** Below this, a row allocates nothing: the profiler's own rounding, never an object. */
    static final double ZERO = 0.5;

    AllocBudget {
        bytesPerOp = Map.copyOf(bytesPerOp);
    }

    /** Reads {@code {"rows": {"event.single_handler": 0, ...}}}. */
    static AllocBudget read(Path file) throws IOException {
        JsonNode rows = Results.JSON.readTree(file.toFile()).path("rows");
        if (!rows.isObject()) {
            throw new IOException(file + " has no \"rows\" object");
        }
        Map<String, Double> budget = new LinkedHashMap<>();
        rows.properties().forEach(e -> budget.put(e.getKey(), e.getValue().asDouble()));
        return new AllocBudget(budget);
    }

    /** One line per row over its budget, empty when every gated row holds. */
    List<String> violations(Results results) {
        List<String> over = new ArrayList<>();
        for (Row r : results.results()) {
            Double budget = bytesPerOp.get(r.name());
            Double bytes = r.allocBytesPerOp();
            if (budget == null || bytes == null) {
                continue;
            }
            boolean fails = budget == 0 ? bytes >= ZERO : bytes > budget;
            if (fails) {
                over.add(String.format(Locale.ROOT, "%s allocates %.1f B/op, budget %s", r.name(), bytes,
                        budget == 0 ? "0 (nothing)" : String.format(Locale.ROOT, "%.1f B", budget)));
            }
        }
        return over;
    }
}
