package dev.pulsebus.server;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** What tests on plain sockets share: reading an HTTP message's head. */
public final class RawHttp {

    private RawHttp() {
    }

    /** The head of the HTTP message {@code in} is at, through its blank line (ISO-8859-1 text). */
    public static String head(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the connection ended in a head");
            }
            bytes.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
