package dev.pulsebus.onebot;

/** How a OneBot adapter reaches its implementation: the {@code mode} setting. */
public enum Mode {
    /** PulseBus connects to the implementation's WebSocket ({@code url}). */
    FORWARD_WS("forward-ws"),
    /** The implementation connects to PulseBus at {@code /onebot/v11/ws} or {@code /onebot/v12/ws}. */
    REVERSE_WS("reverse-ws"),
    /** The implementation POSTs events to {@code /onebot/v11/http}; actions go to its HTTP API ({@code url}). */
    HTTP("http");

    private final String setting;

    Mode(String setting) {
        this.setting = setting;
    }

    /** The value of the {@code mode} setting. */
    public String setting() {
        return setting;
    }

    static Mode of(String setting) {
        for (Mode m : values()) {
            if (m.setting.equals(setting)) {
                return m;
            }
        }
        throw new IllegalArgumentException("must be \"forward-ws\", \"reverse-ws\" or \"http\", was \"" + setting + "\"");
    }
}
