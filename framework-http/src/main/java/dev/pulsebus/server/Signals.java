package dev.pulsebus.server;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Proxy;

/**
 * SIGTERM and SIGINT handled by the process itself, so that a stop ends with the status the server
 * chooses (0) instead of a shutdown hook's 143. The JDK has no public API for this: {@code
 * sun.misc.Signal} (module {@code jdk.unsupported}) is reached through a method handle, because javac
 * warns on every direct use of it and the build fails on warnings.
 */
final class Signals {

    private Signals() {
    }

    /** Runs {@code onSignal} on a new platform thread for each SIGTERM and SIGINT. */
    static void onTermOrInt(Runnable onSignal) throws ReflectiveOperationException {
        Class<?> signal = Class.forName("sun.misc.Signal");
        Class<?> handler = Class.forName("sun.misc.SignalHandler");
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodHandle create = lookup.findConstructor(signal, MethodType.methodType(void.class, String.class));
        MethodHandle handle = lookup.findStatic(signal, "handle", MethodType.methodType(handler, signal, handler));
        Object onEach = Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler}, (proxy, method, args) -> {
            if (method.getName().equals("handle")) {
                Thread.ofPlatform().name("pulsebus-shutdown").start(onSignal);
                return null;
            }
            return switch (method.getName()) { // Object's methods, should anything ask
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "pulsebus signal handler";
            };
        });
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Object unused = handle.invoke(create.invoke(name), onEach);
            } catch (Error | RuntimeException | ReflectiveOperationException e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("cannot handle SIG" + name, t);
            }
        }
    }
}
