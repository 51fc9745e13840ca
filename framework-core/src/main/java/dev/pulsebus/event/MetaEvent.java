package dev.pulsebus.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A OneBot {@code meta} event: {@code detailType} and {@code subType} say which, {@code fields} hold the
 * rest of its data as the platform sent it (immutable).
 */
public record MetaEvent(String id, Instant time, Self self, String detailType, String subType,
                        Map<String, Object> fields) implements Event {

    public MetaEvent {
        Checks.event(id, time, self);
        Objects.requireNonNull(detailType, "detailType");
        subType = Checks.subType(subType);
        fields = Checks.fields(fields);
    }

    @Override
    public String type() {
        return "meta";
    }
}
