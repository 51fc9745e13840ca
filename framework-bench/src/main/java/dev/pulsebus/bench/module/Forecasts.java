package dev.pulsebus.bench.module;

/** The service interface of the module.call row (on the bot's classpath, as services must be). */
public interface Forecasts {

    int forecast(int city);
}
